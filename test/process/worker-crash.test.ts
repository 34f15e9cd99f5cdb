import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ControlEvent, controlWith } from '../../src/faults/controller.js';
import { FaultPlan, type FaultRule } from '../../src/faults/fault-plan.js';
import type { FailpointName } from '../../src/faults/points.js';
import { Supervisor } from '../../src/harness/supervisor.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { startWorld } from '../../src/harness/world-process.js';
import { systemClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import type { JobEvent, JobRow } from '../../src/reference/job.js';
import { SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { readLedger } from '../../src/world/ledger.js';
import { groupAlive, tempRunDir } from '../helpers/run-dir.js';

/*
 * Worker processes SIGKILLed in the middle of a job, at every stage of it, and
 * restarted. The kills are failpoint crashes: the harness SIGKILLs the worker
 * while it waits at the point, so each kill lands exactly there, never after
 * the job was done. Which job each stage kills is drawn from the seed.
 *
 * Everything is judged from evidence the workers cannot edit: what the queue
 * and the world's ledger held at the instant of each kill, the queue's history
 * and the ledger afterwards. Never from a worker's own log.
 */

const JOBS = 12;
const WORKERS = ['w1', 'w2', 'w3'];
const SEED = 20261129;
const LEASE_MS = 1_000;
const STEPS = ['write', 'publish'] as const;

/** A job's plan: an idempotent write, then a publish that is not idempotent but can be looked up (so it is reconciled, never repeated blind). */
function planOf(n: number) {
  return {
    steps: [
      {
        step_id: 'write',
        tool: 'write_file',
        args: { path: `notes/${n}.md`, content: `note ${n}` },
        has_side_effect: true,
        idempotent: true,
        reversible: true,
        retry_policy: 'auto',
        compensation: 'restore_file_version',
        requires_approval: false,
      },
      {
        step_id: 'publish',
        tool: 'publish_article',
        args: { slug: `note-${n}` },
        has_side_effect: true,
        idempotent: false,
        reversible: true,
        retry_policy: 'reconcile_then_retry',
        compensation: 'unpublish_article',
        requires_approval: false,
      },
    ],
  };
}

/** Every stage of a job at which a worker is killed, and which steps the world has applied by then. */
const STAGES: ReadonlyArray<{ id: string; point: FailpointName; step?: (typeof STEPS)[number]; applied: string[] }> = [
  { id: 'after-claim', point: 'after_claim', applied: [] },
  { id: 'after-write', point: 'after_write', step: 'write', applied: ['write'] },
  { id: 'before-publish', point: 'before_call', step: 'publish', applied: ['write'] },
  { id: 'after-publish', point: 'after_write', step: 'publish', applied: ['write', 'publish'] },
  { id: 'before-complete', point: 'before_complete', applied: ['write', 'publish'] },
];

/** What the harness saw at the instant it killed a worker: the hit, and the queue's and the world's state then. */
interface Kill {
  event: ControlEvent;
  job: JobRow | undefined;
  applied: string[];
}

/** `count` distinct items of `items`, drawn from the seed. */
function drawDistinct<T>(items: readonly T[], count: number, seed: number): T[] {
  const random = seededRandom(seed);
  const pool = [...items];
  return Array.from({ length: count }, () => pool.splice(Math.floor(random.next() * pool.length), 1)[0]!);
}

const transitions = (history: JobEvent[]) => history.filter((e) => e.kind === 'transition');

/**
 * The kill landed mid-job (at that instant the worker held a lease on the job,
 * unfinished, with exactly its stage's effects applied), and the job recovered:
 * the killed lease expired without settling, then a newer lease claimed the job
 * and finished it. From the snapshot at the kill and the queue's history.
 */
function expectKilledMidJobThenRecovered(kill: Kill, queue: SqliteQueue): void {
  const stage = STAGES.find((s) => s.id === kill.event.rule)!;
  const { jobId, attempt } = kill.event.context;
  const victim = kill.event.child;
  const what = `${stage.id}: ${victim}#${kill.event.incarnation} on job ${jobId} attempt ${attempt}`;
  expect(kill.job, `${what}: held and unfinished at the kill`).toMatchObject({
    status: 'running',
    leased_by: victim,
    attempts: attempt,
    outcome: null,
  });
  expect(kill.applied, `${what}: the effects applied at the kill, in order`).toEqual(stage.applied);

  const history = transitions(queue.history(Number(jobId)));
  const fence = kill.job!.lease_fence;
  const [claim, expiry, ...afterExpiry] = history.filter((e) => e.fence === fence);
  expect(claim, `${what}: the killed lease's claim`).toMatchObject({ to_status: 'running', worker: victim, attempt });
  expect(expiry, `${what}: the killed lease expired`).toMatchObject({ from_status: 'running', to_status: 'retry' });
  expect(expiry!.reason, what).toContain(`lease of ${victim} expired`);
  expect(afterExpiry, `${what}: nothing else under the killed lease: it never settled`).toEqual([]);
  const expiredAt = history.indexOf(expiry!);
  const reclaimedAt = history.findIndex((e, i) => i > expiredAt && e.to_status === 'running');
  const doneAt = history.findIndex((e) => e.to_status === 'done');
  expect(reclaimedAt, `${what}: claimed again after the expiry`).toBeGreaterThan(expiredAt);
  expect(history[reclaimedAt]!.fence, `${what}: under a newer lease`).toBeGreaterThan(fence);
  expect(doneAt, `${what}: done after that claim`).toBeGreaterThan(reclaimedAt);
}

describe('worker processes SIGKILLed mid-job at every stage of a job, and restarted', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it(`each kill lands on a held, unfinished job, which another claim finishes: done once, every effect once (seed ${SEED})`, async () => {
    const run = tempRunDir('crash');
    const supervisor = new Supervisor(run.dir);
    let stopping = false;
    cleanup.push(run.remove, () => {
      stopping = true;
      return supervisor.stopAll();
    });
    const store = join(run.dir, 'queue.db');
    const ledger = join(run.dir, 'ledger.db');
    const observer = SqliteQueue.open(store, { clock: systemClock(), random: seededRandom(1) });
    cleanup.push(() => observer.close());
    const world = await startWorld(supervisor, ledger);

    const jobsFile = join(run.dir, 'jobs.json');
    writeFileSync(jobsFile, JSON.stringify(Array.from({ length: JOBS }, (_, n) => ({ key: `crash-job-${n}`, plan: planOf(n), maxAttempts: 5 }))));
    const producer = supervisor.spawn('p1', ['producer', '--store', store, '--jobs', jobsFile, '--name', 'p1']);
    expect(await producer.exited).toEqual({ exitCode: 0, signal: undefined });
    const jobIds = observer.jobs().map((job) => String(job.id));
    expect(jobIds).toHaveLength(JOBS);

    // One job per stage, drawn from the seed; `first: 1`: only the first time that job reaches that point.
    const victims = drawDistinct(jobIds, STAGES.length, SEED);
    const rules: FaultRule[] = STAGES.map((stage, i) => ({
      id: stage.id,
      point: stage.point,
      action: 'crash',
      first: 1,
      where: { jobId: victims[i]!, ...(stage.step ? { step: stage.step } : {}) },
    }));
    const plan = new FaultPlan(rules, seededRandom(SEED));
    // The controller records a fired crash before it sends the SIGKILL, while the worker waits at the
    // point for an answer it never gets: what the queue and the ledger hold now is what they held at the kill.
    const kills: Kill[] = [];
    const onEvent = (event: ControlEvent): void => {
      if (event.kind !== 'fired') return;
      const job = observer.job(Number(event.context.jobId));
      const applied = readLedger(ledger)
        .filter((effect) => effect.job === event.context.jobId)
        .map((effect) => effect.step);
      kills.push({ event, job, applied });
    };
    const control = controlWith({ plan, onEvent });

    // A worker killed is started again under its name; one that exits any other way stays down (and fails the test below).
    const timing = ['--lease-ms', String(LEASE_MS), '--skew-margin-ms', '50', '--poll-ms', '10', '--call-timeout-ms', '3000'];
    const retry = ['--retry-base-ms', '20', '--retry-cap-ms', '100', '--retry-jitter-ms', '10'];
    const startWorker = (id: string, index: number): void => {
      const args = ['worker', '--store', store, '--id', id, '--world', world.url, ...timing, ...retry, '--seed', String(index + 1)];
      const child = supervisor.spawn(id, args, { control });
      void child.exited.then((exit) => {
        if (!stopping && exit.signal === 'SIGKILL') startWorker(id, index);
      });
    };
    WORKERS.forEach(startWorker);

    await waitFor(
      () => {
        const counts = observer.counts();
        if (counts.review > 0) throw new Error(`a job went to review: ${JSON.stringify(observer.jobs().filter((j) => j.status === 'review'))}`);
        return counts.done === JOBS;
      },
      { timeoutMs: 45_000, what: `all ${JOBS} jobs done` },
    );
    stopping = true;
    // A worker restarted after the last kill may still be starting: a SIGTERM before it listens for one would
    // kill it outright. Its "started" line comes after it does.
    const live = supervisor.all().filter((child) => child.alive && WORKERS.includes(child.name));
    await waitFor(() => live.every((child) => existsSync(child.logFile) && readFileSync(child.logFile, 'utf8').includes('"event":"started"')), {
      timeoutMs: 20_000,
      what: `${live.map((c) => `${c.name}#${c.incarnation}`).join(', ')} to have started`,
    });
    await supervisor.stopAll(5_000);
    for (const child of supervisor.all()) expect(groupAlive(child.pid), `${child.name} left a process`).toBe(false);

    // Every stage's crash fired, once, on its own job.
    expect(
      plan.stats().map((s) => [s.rule.id, s.fires]),
      'each stage killed a worker once',
    ).toEqual(STAGES.map((s) => [s.id, 1]));
    expect(kills.map((k) => k.event.rule).sort(), 'one kill per stage, in whatever order the workers got there').toEqual(
      STAGES.map((s) => s.id).sort(),
    );
    // Each incarnation the crash fired on died of that SIGKILL; every other one ran until the end and stopped cleanly.
    const killed = new Set(kills.map((k) => `${k.event.child}#${k.event.incarnation}`));
    const workers = supervisor.all().filter((child) => WORKERS.includes(child.name));
    const exits = await Promise.all(workers.map(async (child) => [`${child.name}#${child.incarnation}`, await child.exited] as const));
    expect(exits).toEqual(
      exits.map(([name]) => [name, killed.has(name) ? { exitCode: undefined, signal: 'SIGKILL' } : { exitCode: 0, signal: undefined }]),
    );
    expect(workers, 'each killed worker was started again').toHaveLength(WORKERS.length + STAGES.length);

    for (const kill of kills) expectKilledMidJobThenRecovered(kill, observer);

    // The recovered jobs: every killed job among them, so never an empty list.
    const recovered = observer.jobs().filter((job) => job.attempts > 1);
    expect(recovered.length).toBeGreaterThan(0);
    expect(recovered.map((j) => String(j.id))).toEqual(expect.arrayContaining(victims));

    // Every job, killed or not: done once, one claim per attempt, and each step's effect exactly once in the world.
    const effects = readLedger(ledger);
    expect(observer.counts()).toEqual({ pending: 0, running: 0, retry: 0, done: JOBS, review: 0, compensating: 0 });
    for (const job of observer.jobs()) {
      const history = transitions(observer.history(job.id));
      expect(
        history.filter((e) => e.to_status === 'running'),
        `job ${job.id}: one claim per attempt`,
      ).toHaveLength(job.attempts);
      expect(
        history.filter((e) => e.to_status === 'done'),
        `job ${job.id}: done once`,
      ).toHaveLength(1);
      expect(
        effects
          .filter((e) => e.job === String(job.id))
          .map((e) => e.step)
          .sort(),
        `job ${job.id}: each step applied once in the ledger`,
      ).toEqual([...STEPS].sort());
    }
    expect(effects).toHaveLength(JOBS * STEPS.length);
  });
});
