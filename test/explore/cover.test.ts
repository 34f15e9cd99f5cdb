import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ExploreScope, exploreScope, NO_NETWORK } from '../../src/explore/action-scope.js';
import { cellName, coverCells, coverSchedules } from '../../src/explore/cover.js';
import { exploreLanes } from '../../src/explore/lanes.js';
import { EXPLORE_PLANS } from '../../src/explore/plans.js';
import { type PointFaultSpec, type Schedule, scheduleArbitrary } from '../../src/explore/schedule.js';
import { EXPLORE_SETTINGS, scheduleScenario } from '../../src/explore/to-scenario.js';
import { POINT_FAULT_ACTIONS } from '../../src/faults/actions/index.js';
import { FAILPOINTS, isHoldersPoint, STEP_FAILPOINTS } from '../../src/faults/points.js';
import { CATALOGUE, isToolName } from '../../src/world/catalogue.js';
import { TOOL_EFFECT_KINDS, toolEffectKind } from '../../src/world/effect-kinds.js';
import { WORLD_FAULT_ACTIONS } from '../../src/world/fault-actions/index.js';

/*
 * What explore reaches in its first 100 runs, for several seeds and lane
 * counts, read from the schedules fast-check would hand the property (the
 * covering examples, then its own draws) without running any of them. Which
 * combination a schedule reaches is judged here from the scenario explore
 * would write, by the design's rules for reaching each point, not by the
 * cover's own bookkeeping.
 */

const RUNS = 100;
const SEEDS = [1, 3, 7, 42, 1_000_003, 2_147_483_646];

/** The schedules explore runs first, in order per lane, never run: each lane's fast-check property only records what it is given. */
function firstSchedules(seed: number, runs: number, parallel: number, scope: ExploreScope = NO_NETWORK): Schedule[] {
  return exploreLanes(seed, runs, parallel, scope).flatMap((lane) => {
    const seen: Schedule[] = [];
    fc.assert(
      fc.property(scheduleArbitrary(scope), (schedule) => {
        seen.push(schedule);
      }),
      { seed: lane.seed, numRuns: lane.numRuns, examples: lane.examples },
    );
    return seen;
  });
}

/** A fault of the written scenario, as far as reaching a point goes. */
type Fault =
  | { at: string; action: string; where?: { job?: number; step?: string; attempt?: number } }
  | { world: { job?: number; step?: string }; action: string; ms?: number; status?: number };

/**
 * The combinations one schedule reaches, judged from its scenario: `action@point/kind`, `action@point`, `action~kind`.
 * A fault limited to a job is judged on that job's plan, and led to its point only by world faults on that job.
 */
function reached(schedule: Schedule): string[] {
  const scenario = scheduleScenario(schedule, 'x', 'x');
  const stepsOf = (job = 1) => EXPLORE_PLANS[scenario.jobs[job - 1]!.plan as string]!.steps;
  const faults = scenario.faults as unknown as Fault[];
  const kindOf = (job: number | undefined, stepId: unknown) => {
    const step = stepsOf(job).find((s) => s.step_id === stepId);
    return step && isToolName(step.tool) ? toolEffectKind(step.tool) : null;
  };
  const worlds = faults.flatMap((f) =>
    'world' in f
      ? [
          {
            job: f.world.job ?? 1,
            step: f.world.step,
            index: stepsOf(f.world.job).findIndex((s) => s.step_id === f.world.step),
            action: f.action,
            ms: f.ms,
            status: f.status,
          },
        ]
      : [],
  );
  const slow = (job: number, step?: unknown) =>
    worlds.some(
      (w) => w.job === job && w.action === 'delay' && (w.ms ?? 0) > EXPLORE_SETTINGS.call_timeout_ms && (step === undefined || w.step === step),
    );
  const cells = worlds.flatMap((w) => (kindOf(w.job, w.step) ? [`${w.action}~${kindOf(w.job, w.step)}`] : []));
  for (const fault of faults) {
    if (!('at' in fault) || fault.where?.attempt !== undefined) continue;
    const job = fault.where?.job ?? 1;
    const step = fault.where?.step;
    if (!(STEP_FAILPOINTS as readonly string[]).includes(fault.at)) {
      if (fault.at !== 'heartbeat' || slow(job)) cells.push(`${fault.action}@${fault.at}`);
      continue;
    }
    const kind = kindOf(job, step);
    const steps = stepsOf(job);
    const index = steps.findIndex((s) => s.step_id === step);
    const onJob = worlds.filter((w) => w.job === job);
    const leads = {
      on_timeout: slow(job, step),
      response_lost: onJob.some((w) => w.step === step && (w.action === 'drop' || w.action === 'error_after_apply')),
      during_compensation:
        steps[index]?.compensation != null && onJob.some((w) => w.index > index && w.action === 'fail' && (w.status === 401 || w.status === 403)),
    } as Record<string, boolean>;
    if (kind !== null && (leads[fault.at] ?? true)) cells.push(`${fault.action}@${fault.at}/${kind}`);
  }
  return cells;
}

/**
 * What explore must reach: every action it draws at every point (for every kind of step where a step is named), every world action on every kind.
 * On a queue with a network, every network action too, at every point for any step (drop_reply, the loss of a complete's reply, at a worker's
 * points, and only where the queue names the request that carries it); without one, none of them.
 */
function wanted(queue: { network: boolean; namesComplete: boolean } = { network: false, namesComplete: false }): string[] {
  const undoable = TOOL_EFFECT_KINDS.filter((kind) =>
    Object.values(CATALOGUE).some((tool) => tool.compensationTool !== null && toolEffectKind(tool.name) === kind),
  );
  const network = POINT_FAULT_ACTIONS.filter((a) => a.explore && a.network && queue.network && (a.name !== 'drop_reply' || queue.namesComplete));
  const links = network.flatMap((action) =>
    FAILPOINTS.filter((at) => action.name !== 'drop_reply' || isHoldersPoint(at)).map((at) => `${action.name}@${at}`),
  );
  const points = POINT_FAULT_ACTIONS.filter((a) => a.explore && !a.network).flatMap((action) =>
    FAILPOINTS.flatMap((at) => {
      if (!(STEP_FAILPOINTS as readonly string[]).includes(at)) return [`${action.name}@${at}`];
      return (at === 'during_compensation' ? undoable : TOOL_EFFECT_KINDS).map((kind) => `${action.name}@${at}/${kind}`);
    }),
  );
  const worlds = WORLD_FAULT_ACTIONS.filter((a) => a.explore).flatMap((action) => TOOL_EFFECT_KINDS.map((kind) => `${action.name}~${kind}`));
  return [...points, ...links, ...worlds].sort();
}

describe("explore's first 100 runs", () => {
  it('are the cells the cover names: every action explore draws, at every point, for every kind of effect', () => {
    expect(coverCells().map(cellName).sort()).toEqual(wanted());
    // Three kinds of step effect, and compensation undoes two of them: not a vacuous cross product.
    expect(wanted().length).toBeGreaterThan(100);
  });

  it.each(SEEDS.flatMap((seed) => [1, 2, 3].map((parallel) => ({ seed, parallel }))))(
    'reach every cell, seed $seed, $parallel lane(s)',
    ({ seed, parallel }) => {
      const schedules = firstSchedules(seed, RUNS, parallel);
      expect(schedules).toHaveLength(RUNS);
      const seen = new Set(schedules.flatMap(reached));
      expect(wanted().filter((cell) => !seen.has(cell))).toEqual([]);
    },
  );

  it('are drawn from the seed: the same seed gives the same schedules, another seed others', () => {
    expect(firstSchedules(7, 30, 2)).toEqual(firstSchedules(7, 30, 2));
    expect(firstSchedules(8, 30, 2)).not.toEqual(firstSchedules(7, 30, 2));
  });

  it('walk the cover before any random draw, and the cover fits in them', () => {
    const cover = coverSchedules(42);
    expect(cover.length).toBeLessThanOrEqual(RUNS);
    expect(new Set(firstSchedules(42, cover.length, 1).map((s) => JSON.stringify(s)))).toEqual(new Set(cover.map((s) => JSON.stringify(s))));
  });

  // Issue 23: a zombie's complete that lands after its job is done, and a renewal that lands after the sweep with nobody on the job.
  it.each(SEEDS)(
    'freeze a holder at before_complete long enough for other workers to finish its job, and at heartbeat with no other worker, seed %d',
    (seed) => {
      const zombies = coverSchedules(seed).flatMap((schedule) =>
        schedule.faults.flatMap((fault) =>
          fault.kind === 'point' &&
          (fault.action === 'pause' || fault.action === 'block') &&
          (fault.at === 'before_complete' || fault.at === 'heartbeat')
            ? [{ schedule, fault }]
            : [],
        ),
      );
      expect(zombies.map(({ fault }) => `${fault.action}@${fault.at}`).sort()).toEqual([
        'block@before_complete',
        'block@heartbeat',
        'pause@before_complete',
        'pause@heartbeat',
      ]);
      for (const { schedule, fault } of zombies) {
        expect(fault.first, 'one zombie: the first holder').toBe(1);
        if (fault.at === 'heartbeat') {
          expect(schedule.workers, 'nobody else claims the swept job').toBe(1);
          continue;
        }
        expect(schedule.workers, 'another worker takes the job over').toBeGreaterThanOrEqual(2);
        // Past the lease and its margin, then a second for the sweep and the other worker's whole run.
        expect(fault.fields.ms).toBeGreaterThan(EXPLORE_SETTINGS.lease_ms + EXPLORE_SETTINGS.skew_margin_ms + 1_000);
      }
    },
  );

  it('arm at most one point fault a job (besides the dead holder that leads to before_release), each limited to its job, so none keeps another from its point', () => {
    for (const schedule of coverSchedules(3)) {
      const leads = new Set(schedule.faults.filter((f) => f.kind === 'point' && f.at === 'before_release').map((f) => f.job));
      const jobs = schedule.faults
        .filter((f) => f.kind === 'point' && !(f.at === 'after_claim' && f.action === 'crash' && leads.has(f.job)))
        .map((f) => f.job % schedule.jobs.length);
      expect(new Set(jobs).size).toBe(jobs.length);
      expect(jobs.length).toBeLessThanOrEqual(2);
    }
  });

  // The judge of reach above must be able to say no: a schedule without its leading world fault reaches nothing at on_timeout.
  it('count a point only where the design says it is reached', () => {
    const timeout: Schedule = {
      faults: [{ kind: 'point', at: 'on_timeout', action: 'crash', fields: {}, stepIndex: 0, attempt: null, first: 1, job: 0 }],
      jobs: ['write-file'],
      workers: 1,
      producers: 1,
    };
    expect(reached(timeout)).toEqual([]);
    const slowWrite = { kind: 'world' as const, job: 0, stepIndex: 0, action: 'delay' as const, fields: { ms: 1_000, applied: true }, times: 1 };
    expect(reached({ ...timeout, faults: [...timeout.faults, slowWrite] }).sort()).toEqual(['crash@on_timeout/idempotent', 'delay~idempotent']);
    // A slow call on another job leads nowhere.
    const twoJobs: Schedule = { ...timeout, jobs: ['write-file', 'write-file'], faults: [...timeout.faults, { ...slowWrite, job: 1 }] };
    expect(reached(twoJobs)).toEqual(['delay~idempotent']);
  });
});

/** A queue reached over the network that names the request carrying its complete (the reference on PostgreSQL, BullMQ). */
const NETWORKED = exploreScope({ needs: ['pgUrl'], wireRequests: { complete: { command: 'COMMIT' } } });

/**
 * As reached, on a queue with a network, by the same rules: a network fault at a step's point names no step (it cuts
 * the link whatever the step) and is led there on its job, on any step; and a fault at before_release counts only
 * where its job's holder dies first (the coordinator takes back only a dead holder's job).
 */
function reachedOnNetwork(schedule: Schedule): string[] {
  const scenario = scheduleScenario(schedule, 'x', 'x');
  const faults = scenario.faults as unknown as Array<Fault & { first?: number }>;
  const jobOf = (f: Fault) => ('world' in f ? f.world.job : f.where?.job) ?? 1;
  const worldsOn = (job: number) =>
    faults.flatMap((f) =>
      'world' in f && jobOf(f) === job
        ? [{ ...f, index: EXPLORE_PLANS[scenario.jobs[job - 1]!.plan as string]!.steps.findIndex((s) => s.step_id === f.world.step) }]
        : [],
    );
  const compensable = (job: number) => {
    const steps = EXPLORE_PLANS[scenario.jobs[job - 1]!.plan as string]!.steps;
    const failed = worldsOn(job).filter((w) => w.action === 'fail' && (w.status === 401 || w.status === 403));
    return steps.some((step, i) => step.compensation != null && failed.some((w) => w.index > i));
  };
  const leads: Record<string, (job: number) => boolean> = {
    on_timeout: (job) => worldsOn(job).some((w) => w.action === 'delay' && (w.ms ?? 0) > EXPLORE_SETTINGS.call_timeout_ms),
    response_lost: (job) => worldsOn(job).some((w) => w.action === 'drop' || w.action === 'error_after_apply'),
    during_compensation: compensable,
    before_release: (job) =>
      faults.some(
        (f) =>
          'at' in f && f.at === 'after_claim' && f.action === 'crash' && f.first === 1 && jobOf(f) === job && !f.where?.step && !f.where?.attempt,
      ),
  };
  const linkCells = faults.flatMap((f) => {
    if (!('at' in f) || !(STEP_FAILPOINTS as readonly string[]).includes(f.at) || f.where?.step !== undefined || f.where?.attempt !== undefined)
      return [];
    return (leads[f.at] ?? (() => true))(jobOf(f)) ? [`${f.action}@${f.at}`] : [];
  });
  const released = faults.flatMap((f) =>
    'at' in f && f.at === 'before_release' && !f.where?.attempt && leads.before_release!(jobOf(f)) ? [`${f.action}@before_release`] : [],
  );
  return [...reached(schedule).filter((cell) => !cell.includes('@before_release')), ...linkCells, ...released];
}

describe("explore's first 100 runs on a queue reached over the network", () => {
  const networkActions = POINT_FAULT_ACTIONS.filter((a) => a.network).map((a) => a.name);

  it('are the cells the cover names: every network action at every point it is drawn at, once whatever the step', () => {
    expect(coverCells(NETWORKED).map(cellName).sort()).toEqual(wanted({ network: true, namesComplete: true }));
    const cells = coverCells(NETWORKED).filter((cell) => cell.family === 'point' && (networkActions as string[]).includes(cell.action));
    expect(new Set(cells.map((cell) => cell.action))).toEqual(new Set(networkActions));
    for (const cell of cells) expect(cell.kind, cellName(cell)).toBeNull();
    // A queue that names no request for its complete gets every network action but drop_reply.
    const unnamed = coverCells(exploreScope({ needs: ['redisUrl'] }))
      .map(cellName)
      .sort();
    expect(unnamed).toEqual(wanted({ network: true, namesComplete: false }));
    expect(unnamed.filter((cell) => cell.startsWith('drop_reply'))).toEqual([]);
  });

  it.each(SEEDS.flatMap((seed) => [1, 2, 3].map((parallel) => ({ seed, parallel }))))(
    'reach every cell, seed $seed, $parallel lane(s)',
    ({ seed, parallel }) => {
      expect(coverSchedules(seed, NETWORKED).length).toBeLessThanOrEqual(RUNS);
      const schedules = firstSchedules(seed, RUNS, parallel, NETWORKED);
      expect(schedules).toHaveLength(RUNS);
      const seen = new Set(schedules.flatMap(reachedOnNetwork));
      expect(wanted({ network: true, namesComplete: true }).filter((cell) => !seen.has(cell))).toEqual([]);
    },
  );

  it('lead every action at before_release in with its job holder killed after its claim', () => {
    const released = coverSchedules(7, NETWORKED).flatMap((schedule) =>
      schedule.faults.flatMap((fault) => (fault.kind === 'point' && fault.at === 'before_release' ? [{ schedule, fault }] : [])),
    );
    expect(new Set(released.map(({ fault }) => fault.action))).toEqual(
      new Set(NETWORKED.actions.filter((a) => a.name !== 'drop_reply').map((a) => a.name)),
    );
    for (const { schedule, fault } of released)
      expect(schedule.faults).toContainEqual({
        kind: 'point',
        at: 'after_claim',
        action: 'crash',
        fields: {},
        stepIndex: null,
        attempt: null,
        first: 1,
        job: fault.job,
      });
  });

  // The judge of reach above must be able to say no: a sweep's fault with no dead holder, a network fault on a timeout never led to.
  it('count before_release and a network fault at a step point only where the design says they are reached', () => {
    const cut: PointFaultSpec = {
      kind: 'point',
      at: 'before_release',
      action: 'partition',
      fields: { ms: 1500 },
      stepIndex: null,
      attempt: null,
      first: 1,
      job: 0,
    };
    const release: Schedule = { faults: [cut], jobs: ['write-file'], workers: 2, producers: 1 };
    expect(reachedOnNetwork(release)).toEqual([]);
    const dead: PointFaultSpec = { ...cut, at: 'after_claim', action: 'crash', fields: {} };
    expect(reachedOnNetwork({ ...release, faults: [cut, dead] }).sort()).toEqual(['crash@after_claim', 'partition@before_release']);
    const timeout: Schedule = { ...release, faults: [{ ...cut, at: 'on_timeout', action: 'reset', fields: {} }] };
    expect(reachedOnNetwork(timeout)).toEqual([]);
    const slow = { kind: 'world' as const, job: 0, stepIndex: 0, action: 'delay' as const, fields: { ms: 1_000, applied: true }, times: 1 };
    expect(reachedOnNetwork({ ...timeout, faults: [...timeout.faults, slow] }).sort()).toEqual(['delay~idempotent', 'reset@on_timeout']);
  });

  it.each(SEEDS)('cut a holder off at before_complete long enough for other workers to take its job over, seed %d', (seed) => {
    const cutOff = coverSchedules(seed, NETWORKED).flatMap((schedule) =>
      schedule.faults.flatMap((fault) =>
        fault.kind === 'point' && fault.action === 'partition' && fault.at === 'before_complete' ? [{ schedule, fault }] : [],
      ),
    );
    expect(cutOff).toHaveLength(1);
    for (const { schedule, fault } of cutOff) {
      expect(fault.first).toBe(1);
      expect(schedule.workers).toBeGreaterThanOrEqual(2);
      expect(fault.fields.ms).toBeGreaterThan(EXPLORE_SETTINGS.lease_ms + EXPLORE_SETTINGS.skew_margin_ms + 1_000);
    }
  });
});
