import { join } from 'node:path';
import { expect } from 'vitest';
import { ManualClock, systemClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import { secretsInPayload } from '../../src/kernel/redact.js';
import type { QueueConnection } from '../../src/port/adapter.js';
import type { Incident, SagaLog, TxRow, TxStatus } from '../../src/port/checkpoint.js';
import type { Claim, WriteResult } from '../../src/port/delivery.js';
import type { JobRow } from '../../src/reference/job.js';
import { settle } from '../../src/reference/lease-worker.js';
import { referenceConnection } from '../../src/reference/reference-connection.js';
import { toClaim } from '../../src/reference/rows.js';
import { SqliteLeaseStore } from '../../src/reference/sqlite/sqlite-lease-store.js';
import { type Claimed, SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { approveStep } from '../../src/saga/approve.js';
import { type CompensationOutcome, compensatePlan } from '../../src/saga/compensate.js';
import { planJob } from '../../src/saga/enqueue-plan.js';
import { compensationKey, type Plan, parsePlan, stepKey } from '../../src/saga/plan.js';
import { type PlanOutcome, runPlan } from '../../src/saga/run-plan.js';
import type { WorldPort } from '../../src/saga/world-port.js';
import { WorldClient } from '../../src/world/client.js';
import type { FaultSpecInput } from '../../src/world/faults.js';
import { type CallRow, type EffectRow, readCalls, readLedger, WorldLedger } from '../../src/world/ledger.js';
import { startWorldServer, type WorldServer } from '../../src/world/server.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The saga logic in-process, on real parts: a real SQLite queue store in a
 * temp dir, a real world server on 127.0.0.1 with its own ledger file, and the
 * real WorldClient over HTTP. Only the worker and coordinator processes are
 * replaced by direct calls of runPlan / compensatePlan / reconcileExpiredLeases,
 * and time in the queue is a ManualClock so leases expire when a test says so.
 */

export const T0 = Date.UTC(2026, 7, 25, 10, 0, 0);
export const LEASE_MS = 30_000;
export const SKEW_MS = 1_000;
/** Past any lease (with its skew margin) and any retry delay of the fixture's policy. */
export const PAST_LEASE_MS = LEASE_MS + SKEW_MS + 1;
/** Deterministic, short retry delay: a retried job is ready again after RETRY_MS. */
export const RETRY_MS = 1_000;

/** Client timeout for the cases that must time out (the world holds its answer much longer). */
export const SHORT_TIMEOUT_MS = 300;

type StepInput = Plan['steps'][number];

export const WRITE_STEP: StepInput = {
  step_id: 'write',
  tool: 'write_file',
  args: { path: 'notes/a.txt', content: 'hello' },
  has_side_effect: true,
  idempotent: true,
  reversible: true,
  retry_policy: 'auto',
  compensation: 'restore_file_version',
  requires_approval: false,
};

export const CHARGE_STEP: StepInput = {
  step_id: 'charge',
  tool: 'charge_customer',
  args: { customer: 'c_1024', amount: 199 },
  has_side_effect: true,
  idempotent: false,
  reversible: false,
  retry_policy: 'reconcile_then_retry',
  compensation: null,
  requires_approval: true,
};

export const EMAIL_STEP: StepInput = {
  step_id: 'email',
  tool: 'send_email',
  args: { to: 'user@example.com', subject: 'your receipt' },
  has_side_effect: true,
  idempotent: false,
  reversible: false,
  retry_policy: 'reconcile_then_retry',
  compensation: null,
  requires_approval: false,
};

export const BRANCH_STEP: StepInput = {
  step_id: 'branch',
  tool: 'create_branch',
  args: { name: 'feature/x' },
  has_side_effect: true,
  idempotent: true,
  reversible: true,
  retry_policy: 'auto',
  compensation: 'delete_branch',
  requires_approval: false,
};

/** The plan: write_file, then charge_customer (approval), then send_email. */
export const THREE_STEP: Plan = { steps: [WRITE_STEP, CHARGE_STEP, EMAIL_STEP] };

export function planOf(...steps: StepInput[]): Plan {
  return { steps };
}

export interface SagaFixture {
  dir: string;
  storeFile: string;
  ledgerFile: string;
  clock: ManualClock;
  /** The SQLite queue itself, driven directly (a worker's claim, a store's reads). */
  queue: SqliteQueue;
  /** The same queue through the adapter contract, as the roles see it. */
  conn: QueueConnection;
  server: WorldServer;
  /** The default client (timeout 5 s). */
  client: WorldClient;
  /** Another client of the world, closed at teardown. */
  newClient(timeoutMs: number): WorldClient;
  /** Enqueues a plan the way the CLI does (enqueuePlan on the store file); returns the job id. */
  enqueue(plan: Plan, options?: { maxAttempts?: number; key?: string }): number;
  /** Claims the next ready job as `worker`; fails the test when none is ready. */
  claim(worker?: string): Claimed;
  /** enqueue + claim. */
  start(plan: Plan, options?: { maxAttempts?: number; worker?: string }): Claimed;
  /** The claim a holder of `claimed` shows (the port's view of it). */
  claimOf(claimed: Claimed): Claim;
  /** The saga log of `claimed`'s job, fenced for its holder. */
  logOf(claimed: Claimed): Promise<SagaLog>;
  /** A worker's run of its claimed plan (runPlan), against `world` (default: the default client). */
  run(claimed: Claimed, world?: WorldPort): Promise<PlanOutcome>;
  /** What the worker's loop does with an outcome (src/reference/lease-worker.ts): exactly one queue write. */
  settle(claimed: Claimed, outcome: PlanOutcome): Promise<WriteResult | null>;
  /** run + settle. */
  runAndSettle(claimed: Claimed, world?: WorldPort): Promise<PlanOutcome>;
  /** The coordinator's side of a saga: claimCompensation + compensatePlan, settling finished sagas with finishCompensation. */
  compensate(coordinator?: string, world?: WorldPort): Promise<{ claimed: Claimed; outcome: CompensationOutcome }>;
  /** A checkpoint written under a lease, as a worker that is about to die would have. */
  checkpoint(claimed: Claimed, stepId: string, status: TxStatus): void;
  /** Applies a step's effect directly in the world under the step's key ("it happened"). */
  applyDirectly(claimed: Claimed, stepId: string, plan: Plan): Promise<string | null>;
  /** Moves the queue's clock past every lease and retry delay. */
  expireLeases(): void;
  job(jobId: number): JobRow;
  txLog(jobId: number): TxRow[];
  incidents(jobId: number): Incident[];
  /** The world's ledger file, read from disk: the ground truth. */
  effects(): EffectRow[];
  effectsFor(key: string): EffectRow[];
  calls(): CallRow[];
  /** Effects counted per idempotency key. */
  effectCounts(): Record<string, number>;
  keyOf(jobId: number, stepId: string): string;
  compensationKeyOf(jobId: number, stepId: string): string;
  arm(spec: FaultSpecInput): Promise<void>;
  close(): Promise<void>;
}

/** Starts a fresh store, world and client; close() (register it in afterEach) stops and removes all of it. */
export async function startSaga(): Promise<SagaFixture> {
  const run = tempRunDir('saga');
  const storeFile = join(run.dir, 'queue.db');
  const ledgerFile = join(run.dir, 'world.db');
  const clock = new ManualClock(T0);
  const random = seededRandom(3);
  const queue = SqliteQueue.open(storeFile, {
    clock,
    random,
    leaseMs: LEASE_MS,
    skewMarginMs: SKEW_MS,
    retryDelay: { baseMs: RETRY_MS, capMs: RETRY_MS, jitterMs: 0 },
  });
  const store = new SqliteLeaseStore(queue);
  const conn = referenceConnection(store, { leaseMs: LEASE_MS });
  const ledger = WorldLedger.open(ledgerFile);
  let server: WorldServer;
  try {
    server = await startWorldServer({ ledger, clock: systemClock() });
  } catch (error) {
    ledger.close();
    queue.close();
    run.remove();
    throw error;
  }
  const clients: WorldClient[] = [];
  const newClient = (timeoutMs: number): WorldClient => {
    const client = new WorldClient(server.url, { timeoutMs });
    clients.push(client);
    return client;
  };
  const client = newClient(5_000);

  const payloadOf = (job: JobRow): Record<string, unknown> => JSON.parse(job.payload_json) as Record<string, unknown>;
  const job = (jobId: number): JobRow => {
    const row = queue.job(jobId);
    if (!row) throw new Error(`no job ${jobId}`);
    return row;
  };
  const keyOf = (jobId: number, stepId: string): string => stepKey(job(jobId).idempotency_key, stepId);

  const fixture: SagaFixture = {
    dir: run.dir,
    storeFile,
    ledgerFile,
    clock,
    queue,
    conn,
    server,
    client,
    newClient,
    enqueue(plan, options = {}) {
      const request = planJob({ plan, key: options.key, maxAttempts: options.maxAttempts ?? 3, workflowVersion: 'saga-test-v1' });
      return queue.enqueue({ key: request.key, action: request.action, payload: request.payload, maxAttempts: request.maxAttempts }).jobId;
    },
    claim(worker = 'w1') {
      const claimed = queue.claim(worker);
      if (!claimed) throw new Error(`nothing to claim for ${worker}: ${JSON.stringify(queue.jobs().map((j) => [j.id, j.status, j.next_run_at]))}`);
      return claimed;
    },
    start(plan, options = {}) {
      fixture.enqueue(plan, options);
      return fixture.claim(options.worker);
    },
    claimOf: (claimed) => toClaim(claimed.job),
    logOf: (claimed) => conn.saga.logFor(toClaim(claimed.job)),
    async run(claimed, world = client) {
      const payload = payloadOf(claimed.job);
      return runPlan({
        claim: toClaim(claimed.job),
        txLog: await fixture.logOf(claimed),
        plan: parsePlan(payload.plan),
        world,
        secrets: secretsInPayload(payload),
      });
    },
    settle: (claimed, outcome) => settle(store, toClaim(claimed.job), outcome),
    async runAndSettle(claimed, world) {
      const outcome = await fixture.run(claimed, world);
      const write = await fixture.settle(claimed, outcome);
      if (write && !write.ok) throw new Error(`the queue refused the ${outcome.kind} write: ${JSON.stringify(write)}`);
      return outcome;
    },
    async compensate(coordinator = 'coord-1', world = client) {
      const claimed = queue.claimCompensation(coordinator);
      if (!claimed) throw new Error('no saga waits for compensation');
      const payload = payloadOf(claimed.job);
      const outcome = await compensatePlan({
        claim: toClaim(claimed.job),
        txLog: await fixture.logOf(claimed),
        plan: parsePlan(payload.plan),
        world,
        secrets: secretsInPayload(payload),
      });
      if (outcome.kind === 'compensated' || outcome.kind === 'compensation_failed') {
        const write = queue.finishCompensation(claimed.lease, outcome.kind, outcome.reason);
        if (!write.ok) throw new Error(`finishCompensation refused: ${JSON.stringify(write)}`);
      }
      return { claimed, outcome };
    },
    checkpoint(claimed, stepId, status) {
      const ok = queue.appendTx(claimed.lease, { stepId, action: 'execute', key: keyOf(claimed.job.id, stepId), status });
      if (!ok) throw new Error('checkpoint refused: the lease is not held');
    },
    async applyDirectly(claimed, stepId, plan) {
      const step = plan.steps.find((s) => s.step_id === stepId);
      if (!step) throw new Error(`no step ${stepId}`);
      const answer = await client.call(step.tool, keyOf(claimed.job.id, stepId), step.args, {
        job: String(claimed.job.id),
        step: stepId,
        attempt: claimed.job.attempts,
        worker: claimed.lease.workerId,
        pid: process.pid,
      });
      return answer.externalRef;
    },
    expireLeases() {
      clock.advance(PAST_LEASE_MS);
    },
    job,
    txLog: (jobId) => queue.txLog(jobId),
    incidents: (jobId) => queue.incidents(jobId),
    effects: () => readLedger(ledgerFile),
    effectsFor: (key) => readLedger(ledgerFile).filter((e) => e.key === key),
    calls: () => readCalls(ledgerFile),
    effectCounts() {
      const counts: Record<string, number> = {};
      for (const effect of readLedger(ledgerFile)) counts[effect.key] = (counts[effect.key] ?? 0) + 1;
      return counts;
    },
    keyOf,
    compensationKeyOf: (jobId, stepId) => compensationKey(job(jobId).idempotency_key, stepId),
    async arm(spec) {
      await client.armFault(spec);
    },
    async close() {
      for (const c of clients) c.close();
      await server.close();
      ledger.close();
      queue.close();
      run.remove();
    },
  };
  return fixture;
}

/** A compact view of tx log rows: "step action status". */
export function txLines(rows: readonly TxRow[]): string[] {
  return rows.map((row) => `${row.step_id} ${row.action} ${row.status}`);
}

/**
 * Drives a plan with an approval step to the point where the approved step
 * runs: first run prepares and goes to review, a person approves, and the
 * next claim is returned (attempt 2) without running it.
 */
export async function approvedClaim(fx: SagaFixture, plan: Plan, options: { maxAttempts?: number } = {}): Promise<Claimed> {
  const first = fx.start(plan, options);
  const outcome = await fx.runAndSettle(first);
  if (outcome.kind !== 'review' || !outcome.reason.startsWith('approval required')) {
    throw new Error(`expected review for approval, got ${JSON.stringify(outcome)}`);
  }
  await approveStep(fx.conn, String(first.job.id), 'alice');
  return fx.claim('w2');
}

/**
 * For an afterAll: every fixture was closed, so no listening world and no open
 * connection is left (closed handles go away within a few ticks). The world's
 * delayed answers are timers tied to their connections, so they are covered too.
 */
export async function expectNothingOpen(): Promise<void> {
  const open = () => process.getActiveResourcesInfo().filter((kind) => kind.startsWith('TCP'));
  for (let i = 0; i < 50 && open().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(open()).toEqual([]);
}
