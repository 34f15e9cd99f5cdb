import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClaimWatch } from '../../src/faults/claim-watch.js';
import { ClockBook } from '../../src/faults/clock-book.js';
import { type ControlEvent, FailpointController } from '../../src/faults/controller.js';
import { FaultPlan, type FaultRule } from '../../src/faults/fault-plan.js';
import { type Child, type ControlFactory, Supervisor } from '../../src/harness/supervisor.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { seededRandom } from '../../src/kernel/random.js';
import { procState } from '../helpers/processes.js';
import { groupAlive, tempRunDir } from '../helpers/run-dir.js';

// Real children (test/fixtures/failpoint-child.mjs, running dist/faults/failpoint.js:
// build first) answered by a real controller over the real channel.

const SCRIPT = fileURLToPath(new URL('../fixtures/failpoint-child.mjs', import.meta.url));
const PROCESS_EVENTS = ['exit', 'SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection'] as const;

interface Line {
  text: string;
  at: number;
}

/** The child's log, each line split into its text and its epoch-ms stamp. */
function lines(child: Child): Line[] {
  if (!existsSync(child.logFile)) return [];
  return readFileSync(child.logFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const match = /^(.*) @(\d+)$/.exec(line);
      return match ? { text: match[1]!, at: Number(match[2]) } : { text: line, at: Number.NaN };
    });
}

const texts = (child: Child): string[] => lines(child).map((l) => l.text);
const steps = (child: Child): string[] => texts(child).filter((t) => !/^(start|tick|gtick|grandchild)\b/.test(t));

const activeTimers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('failpoints over the control channel', () => {
  let run: ReturnType<typeof tempRunDir>;
  let supervisor: Supervisor;
  let controllers: FailpointController[];
  let baseline: { listeners: number[]; timers: number };

  beforeEach(() => {
    run = tempRunDir('failpoint');
    supervisor = new Supervisor(run.dir);
    controllers = [];
    baseline = { listeners: PROCESS_EVENTS.map((e) => process.listenerCount(e)), timers: activeTimers() };
  });

  afterEach(async () => {
    try {
      await supervisor.stopAll(2_000);
      for (const child of supervisor.all()) expect(groupAlive(child.pid), `${child.name}#${child.incarnation} left a process`).toBe(false);
      for (const controller of controllers) expect(controller.active, 'a controller outlived its child').toBe(false);
      expect(PROCESS_EVENTS.map((e) => process.listenerCount(e))).toEqual(baseline.listeners);
      expect(activeTimers(), 'a timer leaked').toBeLessThanOrEqual(baseline.timers);
    } finally {
      run.remove();
    }
  });

  /** A control factory for a plan that keeps each controller for the leak checks. */
  function control(plan: FaultPlan, events: ControlEvent[] = [], claims = new ClaimWatch(), clocks?: ClockBook): ControlFactory {
    return (child, channel) => {
      const controller = new FailpointController(child, channel, { plan, onEvent: (e) => events.push(e), claims, ...(clocks ? { clocks } : {}) });
      controllers.push(controller);
      return controller;
    };
  }

  function start(rules: FaultRule[], args: string[], name = 'w1') {
    const plan = new FaultPlan(rules, seededRandom(1));
    const events: ControlEvent[] = [];
    const child = supervisor.spawn(name, ['--worker', name, ...args], { script: SCRIPT, control: control(plan, events) });
    return { plan, events, child };
  }

  const POINTS = ['after_claim', 'after_write', 'after_verify'];

  it('without a control channel every failpoint is a no-op', async () => {
    const child = supervisor.spawn('w1', ['--worker', 'w1', ...POINTS], { script: SCRIPT });
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(steps(child)).toEqual([...POINTS.flatMap((p) => [`before ${p}`, `after ${p}`]), 'done']);
  });

  it('continue: every hit is recorded, with its context, and the child runs on', async () => {
    const { child, events, plan } = start([], POINTS);
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(steps(child)).toEqual([...POINTS.flatMap((p) => [`before ${p}`, `after ${p}`]), 'done']);
    expect(events.map((e) => [e.kind, e.point, e.action.type, e.child, e.incarnation])).toEqual(POINTS.map((p) => ['hit', p, 'continue', 'w1', 1]));
    expect(events[1]!.context).toEqual({ point: 'after_write', worker: 'w1', attempt: 1, jobId: 1, jobKey: 'job-1', step: 's2' });
    expect(plan.stats()).toEqual([]);
  });

  it('crash lands exactly at the point: SIGKILLed while held there', async () => {
    const { child, events, plan } = start([{ id: 'kill', point: 'after_write', action: 'crash' }], POINTS);
    expect(await child.exited).toEqual({ exitCode: undefined, signal: 'SIGKILL' });
    expect(steps(child)).toEqual(['before after_claim', 'after after_claim', 'before after_write']);
    expect(events.map((e) => [e.kind, e.point, e.action.type, e.rule])).toEqual([
      ['hit', 'after_claim', 'continue', undefined],
      ['fired', 'after_write', 'crash', 'kill'],
    ]);
    expect(plan.unfired()).toEqual([]);
  });

  it('error throws the typed error of each kind, and the child goes on', async () => {
    const kinds = [
      ['transient', 'TransientError'],
      ['permanent', 'PermanentError'],
      ['unknown_outcome', 'UnknownOutcomeError'],
      ['policy', 'PolicyViolationError'],
      ['business', 'BusinessRuleError'],
    ] as const;
    const rules: FaultRule[] = kinds.map(([kind], n) => ({
      id: kind,
      point: 'on_timeout',
      action: 'error',
      arg: { kind, message: `boom ${n + 1}` },
      where: { step: `s${n + 1}` },
    }));
    const { child } = start(rules, [...kinds.map(() => 'on_timeout'), 'after_verify']);
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(steps(child)).toEqual([
      ...kinds.flatMap(([kind, name], n) => ['before on_timeout', `error on_timeout ${name} ${kind} boom ${n + 1}`]),
      'before after_verify',
      'after after_verify',
      'done',
    ]);
  });

  it('exit ends the child with the code, at the point', async () => {
    const { child } = start([{ id: 'bye', point: 'after_verify', action: 'exit', arg: { code: 7 } }], POINTS);
    expect(await child.exited).toEqual({ exitCode: 7, signal: undefined });
    expect(steps(child)).toEqual(['before after_claim', 'after after_claim', 'before after_write', 'after after_write', 'before after_verify']);
  });

  it('delay: the child waits without freezing (its timers run meanwhile)', async () => {
    const { child } = start([{ id: 'slow', point: 'after_claim', action: 'delay', arg: { ms: 150 } }], ['--tick-ms', '10', 'after_claim']);
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    const log = lines(child);
    const before = log.find((l) => l.text === 'before after_claim')!;
    const after = log.find((l) => l.text === 'after after_claim')!;
    expect(after.at - before.at).toBeGreaterThanOrEqual(145);
    expect(log.filter((l) => l.text === 'tick' && l.at > before.at && l.at < after.at).length).toBeGreaterThan(3);
  });

  it('pause: SIGSTOPs the whole group for the time given, then the child continues', async () => {
    const PAUSE_MS = 300;
    const { child, events } = start(
      [
        { id: 'zombie', point: 'after_claim', action: 'pause', arg: { ms: PAUSE_MS } },
        // Time for the grandchild to tick again after the continue, before the child ends it.
        { id: 'linger', point: 'after_write', action: 'delay', arg: { ms: 60 } },
      ],
      ['--tick-ms', '10', '--grandchild', 'after_claim', 'after_write'],
    );
    const grandchild = await waitFor(
      () =>
        texts(child)
          .map((t) => /^grandchild pid=(\d+)$/.exec(t)?.[1])
          .find(Boolean),
      {
        timeoutMs: 10_000,
        intervalMs: 5,
        what: 'the grandchild to start',
      },
    );
    // Both the child and the process it started are stopped, not merely busy.
    await waitFor(() => procState(child.pid) === 'T' && procState(Number(grandchild)) === 'T', {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: 'the group to be stopped',
    });
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(steps(child)).toEqual(['before after_claim', 'after after_claim', 'before after_write', 'after after_write', 'done']);

    const fired = events.find((e) => e.kind === 'fired' && e.rule === 'zombie')!;
    const resumed = events.find((e) => e.kind === 'resumed')!;
    expect([fired.rule, resumed.rule]).toEqual(['zombie', 'zombie']);
    expect(resumed.at - fired.at).toBeGreaterThanOrEqual(PAUSE_MS - 2);
    const log = lines(child);
    expect(log.find((l) => l.text === 'after after_claim')!.at - log.find((l) => l.text === 'before after_claim')!.at).toBeGreaterThanOrEqual(
      PAUSE_MS - 5,
    );
    // The grandchild ticks every 10 ms until the stop and after the continue, never in between.
    const gticks = log.filter((l) => l.text === 'gtick').map((l) => l.at);
    expect(
      gticks.some((at) => at < fired.at),
      'ticks before the pause',
    ).toBe(true);
    expect(
      gticks.some((at) => at > resumed.at),
      'ticks after the pause',
    ).toBe(true);
    expect(
      gticks.filter((at) => at > fired.at + 15 && at < resumed.at - 5),
      'ticks during the pause',
    ).toEqual([]);
  });

  it('pause until claimed_again: the zombie goes on as soon as a later attempt of its job is claimed, long before its ms', async () => {
    const plan = new FaultPlan(
      [{ id: 'zombie', point: 'after_claim', action: 'pause', arg: { ms: 60_000, until: 'claimed_again' }, where: { attempt: 1 } }],
      seededRandom(1),
    );
    const events: ControlEvent[] = [];
    const factory = control(plan, events);
    const zombie = supervisor.spawn('w1', ['--worker', 'w1', '--attempt', '1', 'after_claim', 'after_write'], { script: SCRIPT, control: factory });
    await waitFor(() => procState(zombie.pid) === 'T', { timeoutMs: 10_000, intervalMs: 5, what: 'the zombie to be stopped' });
    // Stopped by the pause (its firing on record), and still stopped while nobody else has claimed the job.
    await waitFor(() => events.some((e) => e.kind === 'fired' && e.rule === 'zombie'), {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: 'the pause to fire',
    });
    expect(procState(zombie.pid)).toBe('T');
    const next = supervisor.spawn('w2', ['--worker', 'w2', '--attempt', '2', 'after_claim'], { script: SCRIPT, control: factory });
    expect(await zombie.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(await next.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(steps(zombie)).toEqual(['before after_claim', 'after after_claim', 'before after_write', 'after after_write', 'done']);
    const fired = events.find((e) => e.kind === 'fired' && e.rule === 'zombie')!;
    const claimed = events.find((e) => e.child === 'w2' && e.point === 'after_claim')!;
    const resumed = events.find((e) => e.kind === 'resumed')!;
    expect(resumed.at).toBeGreaterThanOrEqual(claimed.at);
    expect(resumed.at - fired.at).toBeLessThan(30_000);
  });

  it('a child killed during a pause takes the pause timer with it', async () => {
    const { child } = start([{ id: 'long', point: 'after_claim', action: 'pause', arg: { ms: 60_000 } }], POINTS);
    await waitFor(() => procState(child.pid) === 'T', { timeoutMs: 10_000, intervalMs: 5, what: 'the child to be stopped' });
    expect(await supervisor.crash(child)).toEqual({ exitCode: undefined, signal: 'SIGKILL' });
    expect(steps(child)).toEqual(['before after_claim']);
    // afterEach: no timer left behind, the controller stopped.
  });

  it('hang: the step never returns, though the process lives on', async () => {
    const { child, events } = start([{ id: 'stuck', point: 'after_claim', action: 'hang' }], ['--tick-ms', '10', 'after_claim', 'after_write']);
    const fired = await waitFor(() => events.find((e) => e.kind === 'fired'), { timeoutMs: 10_000, intervalMs: 5, what: 'the hang to fire' });
    await waitFor(() => lines(child).filter((l) => l.text === 'tick' && l.at > fired.at).length >= 3, {
      timeoutMs: 10_000,
      intervalMs: 5,
      what: 'the hung child to keep ticking',
    });
    expect(child.alive).toBe(true);
    expect(steps(child)).toEqual(['before after_claim']);
    expect(await supervisor.crash(child)).toEqual({ exitCode: undefined, signal: 'SIGKILL' });
  });

  it('first N: one plan across restarts crashes the first incarnation only', async () => {
    const plan = new FaultPlan([{ id: 'once', point: 'after_write', action: 'crash', first: 1 }], seededRandom(1));
    const events: ControlEvent[] = [];
    const spawn = () => supervisor.spawn('w1', ['--worker', 'w1', ...POINTS], { script: SCRIPT, control: control(plan, events) });
    const first = spawn();
    expect((await first.exited).signal).toBe('SIGKILL');
    const second = spawn();
    expect(await second.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(steps(second)).toContain('after after_write');
    expect(events.filter((e) => e.point === 'after_write').map((e) => [e.incarnation, e.kind])).toEqual([
      [1, 'fired'],
      [2, 'hit'],
    ]);
    expect(plan.stats().map(({ hits, fires }) => [hits, fires])).toEqual([[2, 1]]);
  });

  it('an armed fault whose point is never reached is listed as unfired', async () => {
    const { child, plan } = start([{ id: 'vacuous', point: 'during_compensation', action: 'crash' }], POINTS);
    expect((await child.exited).exitCode).toBe(0);
    expect(plan.unfired().map((s) => s.rule.id)).toEqual(['vacuous']);
  });

  it("measures the child's clock against the harness's, within a bound both ways, and keeps each lease it reports", async () => {
    const clocks = new ClockBook();
    const plan = new FaultPlan([], seededRandom(1));
    const before = Date.now();
    const until = '2026-08-25T10:00:00.400Z';
    const args = ['--worker', 'w1', '--skew', '-250', '--lease', until, 'after_claim', 'heartbeat'];
    const child = supervisor.spawn('w1', args, { script: SCRIPT, control: control(plan, [], new ClaimWatch(), clocks) });
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    const [offset] = clocks.offsets();
    // Two readings at the start, one per point, one with the lease: each bounds it from below, each but the first from above too.
    expect(offset).toMatchObject({ process: 'w1', samples: 5 });
    expect(offset!.lowMs).toBeLessThanOrEqual(-250);
    expect(offset!.highMs).toBeGreaterThanOrEqual(-250);
    expect(offset!.highMs! - offset!.lowMs).toBeLessThan(1_000);
    expect(clocks.leases).toEqual([
      { process: 'w1', at: expect.any(String), job: '1', attempt: 1, epoch: 1, worker: 'w1', leaseUntil: until, by: 'renewal' },
    ]);
    expect(Date.parse(clocks.leases[0]!.at)).toBeGreaterThanOrEqual(before);
    expect(steps(child)).toEqual(['before after_claim', 'after after_claim', 'before heartbeat', 'after heartbeat', 'done']);
  });

  it('measures nothing of a child that was given no clock: its lines carry no reading', async () => {
    const clocks = new ClockBook();
    const plan = new FaultPlan([], seededRandom(1));
    const child = supervisor.spawn('w1', ['--worker', 'w1', '--lease', '2026-08-25T10:00:00.400Z', 'after_claim'], {
      script: SCRIPT,
      control: control(plan, [], new ClaimWatch(), clocks),
    });
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(clocks.offsets()).toEqual([]);
    expect(clocks.leases).toEqual([]);
  });

  it('a malformed request closes the channel: the child fails at its point instead of waiting forever', async () => {
    const { child } = start([], ['--garbage', 'after_claim']);
    expect(await child.exited).toEqual({ exitCode: 0, signal: undefined });
    expect(steps(child)).toEqual([
      'before after_claim',
      expect.stringMatching(/^error after_claim FailpointChannelError QD_FAILPOINT_CHANNEL_CLOSED /),
      'done',
    ]);
    expect(controllers[0]!.errors.map((e) => e.code)).toEqual(['QD_CONTROL_PROTOCOL']);
  });
});
