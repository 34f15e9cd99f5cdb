import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { controlWith } from '../../src/faults/controller.js';
import { FaultPlan, type FaultRule } from '../../src/faults/fault-plan.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { type Child, Supervisor } from '../../src/harness/supervisor.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { startWorld } from '../../src/harness/world-process.js';
import { systemClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import { SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { stepKey } from '../../src/saga/plan.js';
import { WorldClient } from '../../src/world/client.js';
import { readLedger } from '../../src/world/ledger.js';
import { groupAlive, tempRunDir } from '../helpers/run-dir.js';

// The three-step job: an idempotent write, a critical charge that needs
// approval (lookup: yes), and an email nobody can look up.
const PLAN = {
  steps: [
    {
      step_id: 'write',
      tool: 'write_file',
      args: { path: 'src/billing.py', content: 'fixed' },
      has_side_effect: true,
      idempotent: true,
      reversible: true,
      retry_policy: 'auto',
      compensation: 'restore_file_version',
      requires_approval: false,
    },
    {
      step_id: 'charge',
      tool: 'charge_customer',
      args: { customer: 'c_1024', amount: 199 },
      has_side_effect: true,
      idempotent: false,
      reversible: false,
      retry_policy: 'reconcile_then_retry',
      compensation: null,
      requires_approval: true,
    },
    {
      step_id: 'email',
      tool: 'send_email',
      args: { to: 'user@example.com', subject: 'receipt' },
      has_side_effect: true,
      idempotent: false,
      reversible: false,
      retry_policy: 'manual_only',
      compensation: null,
      requires_approval: false,
    },
  ],
};
const STEPS = ['write', 'charge', 'email'] as const;
const LEASE_MS = 500;

/** Where the worker dies: after the step's checkpoint, before its call, or with the call applied but unanswered. */
type KillAt = 'after_write' | 'before_call' | 'mid_call';

const cli = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args]);

describe('a three-step saga whose worker is SIGKILLed at every step boundary, then restarted', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  async function drill(step: (typeof STEPS)[number], killAt: KillAt) {
    const run = tempRunDir('saga');
    const supervisor = new Supervisor(run.dir);
    cleanup.push(run.remove, () => supervisor.stopAll());
    const store = join(run.dir, 'queue.db');
    const ledger = join(run.dir, 'ledger.db');
    const queue = SqliteQueue.open(store, { clock: systemClock(), random: seededRandom(1) });
    cleanup.push(() => queue.close());
    const world = await startWorld(supervisor, ledger);
    const client = new WorldClient(world.url, { timeoutMs: 2_000 });
    cleanup.push(() => client.close());

    const enqueued = JSON.parse((await cli(['enqueue', '--store', store, '--plan', JSON.stringify(PLAN)])).stdout) as { jobId: number; key: string };
    const key = stepKey(enqueued.key, step);
    supervisor.spawn('coordinator', ['coordinator', '--store', store, '--world', world.url, '--tick-ms', '50', '--skew-margin-ms', '50']);

    // The harness decides the fault: crash the first time the worker reaches the point.
    const rules: FaultRule[] = killAt === 'mid_call' ? [] : [{ id: 'kill', point: killAt, where: { step }, action: 'crash', first: 1 }];
    const plan = new FaultPlan(rules, seededRandom(7));
    if (killAt === 'mid_call') {
      // The world applies the effect and holds the answer far longer than the worker waits (and the worker
      // waits far longer than the test takes to kill it): the worker is killed while it waits.
      await client.armFault({ match: { key }, action: { type: 'delay', ms: 600_000, applied: true } });
    }
    const startWorker = (): Child =>
      supervisor.spawn(
        'w1',
        [
          'worker',
          '--store',
          store,
          '--id',
          'w1',
          '--world',
          world.url,
          '--lease-ms',
          String(LEASE_MS),
          '--skew-margin-ms',
          '50',
          '--poll-ms',
          '10',
          '--call-timeout-ms',
          killAt === 'mid_call' ? '30000' : '3000',
        ],
        {
          control: controlWith({ plan }),
        },
      );
    let worker = startWorker();
    let killed = false;

    const settled = await waitFor(
      async () => {
        if (killAt === 'mid_call' && !killed && readLedger(ledger).some((effect) => effect.key === key)) {
          // Mid-call, from the evidence at the kill: the effect is applied, the worker holds the job, and its
          // log has the call started but no outcome for it (no success, no unknown after a timeout).
          const held = queue.job(enqueued.jobId)!;
          const checkpoints = queue.txLog(enqueued.jobId).filter((row) => row.step_id === step && row.action === 'execute');
          await supervisor.crash(worker);
          killed = true;
          expect(held, `at the kill, ${step} mid-call`).toMatchObject({ status: 'running', leased_by: 'w1' });
          expect(
            checkpoints.map((row) => row.status),
            `at the kill, ${step} mid-call`,
          ).toEqual(['started']);
        }
        if (!worker.alive) {
          killed = true;
          worker = startWorker();
        }
        const job = queue.job(enqueued.jobId)!;
        if (job.status === 'review' && job.review_reason?.startsWith('approval required')) {
          await cli(['approve', '--job', String(job.id), '--store', store, '--by', 'test']);
          return undefined;
        }
        return job.status === 'done' || job.status === 'review' ? job : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 10, what: `job ${enqueued.jobId} to settle after a kill ${killAt} ${step}` },
    );
    expect(killed, 'the kill landed').toBe(true);
    if (killAt !== 'mid_call') expect(plan.unfired(), 'every armed crash fired').toEqual([]);

    const effects = readLedger(ledger);
    const timesApplied = (s: string) => effects.filter((e) => e.key === stepKey(enqueued.key, s)).length;
    const history = (await cli(['history', '--job', String(enqueued.jobId), '--store', store, '--ledger', ledger])).stdout;
    await supervisor.stopAll();
    for (const child of supervisor.all()) expect(groupAlive(child.pid)).toBe(false);
    return { job: settled, timesApplied, history };
  }

  for (const step of STEPS) {
    for (const killAt of ['before_call', 'after_write'] as const) {
      // A kill between the "started" checkpoint and the call leaves the email in
      // doubt: nothing records whether it left, and nobody can look it up.
      if (step === 'email' && killAt === 'before_call') continue;
      it(`killed at ${killAt} of ${step}: every effect exactly once, done`, async () => {
        const { job, timesApplied, history } = await drill(step, killAt);
        expect(job.status, history).toBe('done');
        for (const s of STEPS) expect(timesApplied(s), `${s} in the ledger`).toBe(1);
        expect(history).toMatch(/lease of w1 expired/);
      });
    }
  }

  it('killed at before_call of email (no lookup): in review with the reason, never sent blind', async () => {
    const { job, timesApplied, history } = await drill('email', 'before_call');
    expect(job.status, history).toBe('review');
    // Whoever finds it first (the coordinator's sweep or the next claim) says why: the email's outcome cannot be known.
    expect(job.review_reason).toMatch(/step email \(send_email\)/);
    expect(job.review_reason).toMatch(/unknown/);
    expect(timesApplied('email')).toBe(0);
    expect(timesApplied('charge')).toBe(1);
    expect(timesApplied('write')).toBe(1);
  });

  it('killed mid-call of write (idempotent by key): repeated harmlessly, every effect once, done', async () => {
    const { job, timesApplied } = await drill('write', 'mid_call');
    expect(job.status).toBe('done');
    for (const s of STEPS) expect(timesApplied(s)).toBe(1);
  });

  it('killed mid-call of charge (not idempotent, lookup): reconciled as completed, never charged twice, done', async () => {
    const { job, timesApplied, history } = await drill('charge', 'mid_call');
    expect(job.status, history).toBe('done');
    for (const s of STEPS) expect(timesApplied(s)).toBe(1);
    expect(history).toMatch(/charge\s+reconcile\s+success/);
  });

  it('killed mid-call of email (no lookup): in review with the reason, never sent twice', async () => {
    const { job, timesApplied, history } = await drill('email', 'mid_call');
    expect(job.status, history).toBe('review');
    expect(job.review_reason).toMatch(/email.*(unknown|cannot)/);
    expect(timesApplied('email')).toBe(1);
    expect(timesApplied('charge')).toBe(1);
    expect(timesApplied('write')).toBe(1);
  });
});
