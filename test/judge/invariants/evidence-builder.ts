import { createHash } from 'node:crypto';
import type { FaultActionName } from '../../../src/faults/actions/index.js';
import type { FailpointName } from '../../../src/faults/points.js';
import type { Evidence, EvidenceAvailability, Expectation, Invariant, TimelineEvent, Verdict } from '../../../src/judge/evidence.js';
import { utc } from '../../../src/kernel/clock.js';
import {
  BusinessRuleError,
  classifyError,
  type ErrorKind,
  PermanentError,
  PolicyViolationError,
  TransientError,
  UnknownOutcomeError,
} from '../../../src/kernel/job-errors.js';
import { type Actor, EVIDENCE_KINDS, type EvidenceKind, type JobOutcome, type JobStatus } from '../../../src/kernel/vocabulary.js';
import type { TxAction, TxRow, TxStatus } from '../../../src/port/checkpoint.js';
import type { JobSnapshot, Transition } from '../../../src/port/snapshot.js';
import { compensationKey, type Plan, type PlanStep, stepKey } from '../../../src/saga/plan.js';
import { toolMetadata } from '../../../src/world/catalogue.js';
import type { EffectRow } from '../../../src/world/ledger.js';

/*
 * Crafted evidence for the invariant tests: a builder that writes what the
 * reference queue, the saga runtime and the world would have written for a
 * job's life (claims with epochs; checkpoints and ledger rows, each under
 * its writer's epoch; explicit outcomes), in the port's words
 * (src/port/snapshot.ts), so a test starts from consistent evidence and
 * breaks exactly one thing. Every kind of evidence is available by default.
 */

/** One of each typed job error, for its name and kind. */
const TYPED_ERRORS = [TransientError, PermanentError, BusinessRuleError, UnknownOutcomeError, PolicyViolationError].map((E) => new E(''));

/**
 * The kind the saga runtime records for a failed call whose error reads
 * `detail` (src/saga/run-plan.ts: classifyError of the error thrown): a typed
 * error's name ("PermanentError: ...") gives its kind, anything else is
 * classified by its text, as a foreign error is.
 */
function kindOfDetail(detail: string | null): ErrorKind | null {
  if (detail === null) return null;
  const named = TYPED_ERRORS.find((error) => detail.startsWith(`${error.name}:`));
  return named?.kind ?? classifyError(new Error(detail));
}

export const T0 = Date.UTC(2026, 7, 25, 10, 0, 0);
export const LEASE_MS = 30_000;
export const SKEW_MS = 1_000;
/** A planted secret (the shape of an API key). */
export const SECRET = 'sk-live-0123456789abcdefghijklmnopqrstuv';

/** The digest a verified run would store. */
export function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The steps the tests' plans are made of; none breaks policy. */
export const STEPS = {
  write: {
    step_id: 'write',
    tool: 'write_file',
    args: { path: 'notes/a.txt', content: 'hello' },
    has_side_effect: true,
    idempotent: true,
    reversible: true,
    retry_policy: 'auto',
    compensation: 'restore_file_version',
    requires_approval: false,
  },
  branch: {
    step_id: 'branch',
    tool: 'create_branch',
    args: { name: 'feature/x' },
    has_side_effect: true,
    idempotent: true,
    reversible: true,
    retry_policy: 'auto',
    compensation: 'delete_branch',
    requires_approval: false,
  },
  email: {
    step_id: 'email',
    tool: 'send_email',
    args: { to: 'user@example.com', subject: 'your receipt' },
    has_side_effect: true,
    idempotent: false,
    reversible: false,
    retry_policy: 'reconcile_then_retry',
    compensation: null,
    requires_approval: false,
  },
  publish: {
    step_id: 'publish',
    tool: 'publish_article',
    args: { slug: 'release-notes' },
    has_side_effect: true,
    idempotent: false,
    reversible: true,
    retry_policy: 'reconcile_then_retry',
    compensation: 'unpublish_article',
    requires_approval: false,
  },
  read: {
    step_id: 'read',
    tool: 'read_file',
    args: { path: 'notes/a.txt' },
    has_side_effect: false,
    idempotent: true,
    reversible: true,
    retry_policy: 'auto',
    compensation: null,
    requires_approval: false,
  },
} as const satisfies Record<string, PlanStep>;

export function planOf(...steps: PlanStep[]): Plan {
  return { steps: steps.map((step) => ({ ...step, args: { ...step.args } })) };
}

/** Every kind of evidence given: the reference queue's capabilities. */
export const ALL_AVAILABLE: EvidenceAvailability = Object.fromEntries(EVIDENCE_KINDS.map((kind) => [kind, true])) as Record<EvidenceKind, true>;

/** The outcome a saga's end is written with: COMPENSATION_FAILED reasons fail, any other is compensated. */
function sagaOutcome(reason: string): 'compensated' | 'compensation_failed' {
  return /^COMPENSATION_FAILED\b/.test(reason) ? 'compensation_failed' : 'compensated';
}

/** One job's life, written step by step into the builder's evidence. */
export class JobScript {
  /** The holder of the live lease, as the store would know it. */
  lease: { worker: string; epoch: number } | null = null;

  constructor(
    private readonly b: EvidenceBuilder,
    readonly row: JobSnapshot,
    readonly plan: Plan,
  ) {}

  get id(): string {
    return this.row.id;
  }

  get key(): string {
    return this.row.key;
  }

  keyOf(stepId: string): string {
    return stepKey(this.key, stepId);
  }

  private step(stepId: string): PlanStep {
    const step = this.plan.steps.find((s) => s.step_id === stepId);
    if (!step) throw new Error(`job ${this.id} has no step ${stepId}`);
    return step;
  }

  /** A transition, applied to the row, recorded in the history. */
  transition(to: JobStatus, actor: Actor, worker: string | null, reason: string, epoch = this.row.epoch): Transition {
    const from = this.row.status;
    const event = this.b.event({ jobId: this.id, kind: 'transition', from, to, attempt: this.row.attempts, epoch, worker, actor, reason });
    this.row.status = to;
    this.row.updatedAt = event.at;
    return event;
  }

  /** pending/retry → running, a new attempt under a new epoch. */
  claim(worker = 'w1'): this {
    this.row.attempts += 1;
    this.row.epoch += 1;
    this.row.holder = worker;
    this.row.leaseUntil = utc(this.b.now + LEASE_MS);
    this.row.outcome = null;
    this.lease = { worker, epoch: this.row.epoch };
    const claim = this.transition('running', 'worker', worker, `claimed by ${worker}, lease until ${this.row.leaseUntil}`);
    this.grant('claim', this.row.leaseUntil, claim.at);
    return this;
  }

  /** The holder renews its lease now (in no history), and its worker tells the harness the end the queue set. */
  renew(): this {
    const at = this.b.tick();
    this.row.leaseUntil = utc(this.b.now + LEASE_MS);
    this.grant('renewal', this.row.leaseUntil, at);
    return this;
  }

  /** A lease the queue granted the holder, as its worker reported it (heard by the harness at `at`). */
  private grant(by: 'claim' | 'renewal', leaseUntil: string, at: string): void {
    const { worker, epoch } = this.holder();
    this.b.evidence.leases.push({ process: worker, at, job: this.id, attempt: this.row.attempts, epoch, worker, leaseUntil, by });
  }

  private holder(): { worker: string; epoch: number } {
    if (!this.lease) throw new Error(`job ${this.id} is not held`);
    return this.lease;
  }

  private release(): void {
    this.row.holder = null;
    this.row.leaseUntil = null;
    this.lease = null;
  }

  /**
   * A checkpoint under the current lease (or as `worker`), carrying the
   * writer's epoch: the live lease's, or (no lease, or `epoch` given) that one.
   */
  tx(
    stepId: string,
    action: TxAction,
    status: TxStatus,
    options: {
      detail?: string | null;
      worker?: string;
      ref?: string | null;
      key?: string;
      epoch?: number;
      attempt?: number;
      errorKind?: ErrorKind | null;
    } = {},
  ): TxRow {
    const worker = options.worker ?? this.holder().worker;
    return this.b.tx({
      job_id: this.id,
      step_id: stepId,
      action,
      idempotency_key: options.key ?? (action === 'compensate' ? compensationKey(this.key, stepId) : this.keyOf(stepId)),
      status,
      external_reference: options.ref ?? null,
      compensation_status: action === 'compensate' ? status : null,
      attempt: options.attempt ?? this.row.attempts,
      epoch: options.epoch ?? this.lease?.epoch ?? this.row.epoch,
      worker,
      detail: options.detail ?? null,
      error_kind: options.errorKind !== undefined ? options.errorKind : status === 'failed' ? kindOfDetail(options.detail ?? null) : null,
    });
  }

  /** The world applies a step's effect (or, with `compensates`, a compensation) for the current holder, under its epoch (or as `worker`, `attempt`, `epoch`: a zombie's). */
  apply(stepId: string, options: { worker?: string; compensates?: boolean; epoch?: number | null; attempt?: number } = {}): EffectRow {
    const step = this.step(stepId);
    const tool = options.compensates ? (step.compensation ?? 'unknown') : step.tool;
    return this.b.effect({
      key: options.compensates ? compensationKey(this.key, stepId) : this.keyOf(stepId),
      tool,
      idempotent: toolMetadata(tool)?.idempotent ?? false,
      job: this.id,
      step: options.compensates ? `${stepId}:compensate` : stepId,
      attempt: options.attempt ?? this.row.attempts,
      worker: options.worker ?? this.lease?.worker ?? 'coord-1',
      compensates: options.compensates ? this.keyOf(stepId) : null,
      epoch: options.epoch === undefined ? (this.lease?.epoch ?? this.row.epoch) : options.epoch,
    });
  }

  /**
   * A step's call: started, then the outcome. success applies the effect (if
   * the step has one); unknown and started (the holder died mid-call) apply it
   * only when asked; failed never does.
   */
  execute(
    stepId: string,
    outcome: 'success' | 'failed' | 'unknown' | 'started' = 'success',
    options: { detail?: string; apply?: boolean; errorKind?: ErrorKind } = {},
  ): this {
    const step = this.step(stepId);
    this.tx(stepId, 'execute', 'started');
    const applies = options.apply ?? outcome === 'success';
    const effect = applies && step.has_side_effect ? this.apply(stepId) : undefined;
    if (outcome !== 'started')
      this.tx(stepId, 'execute', outcome, {
        detail: options.detail ?? null,
        ref: outcome === 'success' ? (effect?.externalRef ?? null) : null,
        ...(options.errorKind ? { errorKind: options.errorKind } : {}),
      });
    return this;
  }

  reconcile(stepId: string, status: 'success' | 'not_executed' | 'unknown', worker?: string): this {
    this.tx(stepId, 'reconcile', status, worker === undefined ? {} : { worker });
    return this;
  }

  /** Every step of the plan, each a success. */
  run(): this {
    for (const step of this.plan.steps) this.execute(step.step_id);
    return this;
  }

  /** running → done with the verified digest; outcome done (src/reference/sqlite/sql/complete.ts). */
  complete(digest = digestOf(`job ${this.id}`)): this {
    const { worker } = this.holder();
    this.row.resultDigest = digest;
    this.row.lastError = null;
    this.row.reviewReason = null;
    this.row.outcome = 'done';
    this.transition('done', 'worker', worker, `done, verified result ${digest.slice(0, 12)}`);
    this.release();
    return this;
  }

  /**
   * running → retry, whatever attempt it is (the store would send an exhausted
   * one to review: a test breaks that on purpose); `delayMs`, when given, is
   * recorded in the history as the delay the queue chose.
   */
  retry(error = 'TransientError: HTTP 503', delayMs?: number): this {
    const { worker } = this.holder();
    const delay = delayMs ?? 1_000;
    this.row.lastError = error;
    this.row.nextRunAt = utc(this.b.now + delay);
    const event = this.transition('retry', 'worker', worker, `retry in ${delay} ms: ${error}`);
    if (delayMs !== undefined) event.retryDelayMs = delayMs;
    this.release();
    return this;
  }

  /** running → review with a reason; outcome review, or awaiting_approval for a prepared step. */
  review(reason: string, error?: string, outcome: 'review' | 'awaiting_approval' = 'review'): this {
    const { worker } = this.holder();
    this.row.reviewReason = reason;
    this.row.outcome = outcome;
    if (error !== undefined) this.row.lastError = error;
    this.transition('review', 'worker', worker, reason);
    this.release();
    return this;
  }

  /**
   * The lease expired and was swept (by the coordinator, or by a worker's
   * claim); with `reconciled`, the coordinator first asked the world about a
   * step left in doubt and logged the answer under the expired lease's epoch,
   * in the same transaction. On the last attempt the job goes to review.
   */
  expire(by = 'coord-1', actor: Actor = 'coordinator', reconciled?: { stepId: string; status: 'success' | 'not_executed' | 'unknown' }): this {
    const { worker, epoch } = this.holder();
    const exhausted = this.row.attempts >= this.row.maxAttempts;
    const reason = `lease of ${worker} expired at ${this.row.leaseUntil}${exhausted ? ' on its last attempt' : ''}`;
    this.b.advance(LEASE_MS + SKEW_MS + 1);
    if (reconciled) this.tx(reconciled.stepId, 'reconcile', reconciled.status, { worker: by, epoch });
    if (exhausted) {
      this.row.reviewReason = reason;
      this.row.outcome = 'review';
    }
    this.transition(exhausted ? 'review' : 'retry', actor, by, reason);
    this.release();
    return this;
  }

  /** A stale write refused by the store: recorded, nothing changed. */
  refused(worker: string, epoch: number, to: JobStatus = 'done', what = 'complete'): Transition {
    return this.b.event({
      jobId: this.id,
      kind: 'refused',
      from: this.row.status,
      to,
      attempt: this.row.attempts,
      epoch,
      worker,
      actor: 'worker',
      reason: `${what} refused: lease of ${worker} under epoch ${epoch} was lost (job is ${this.row.status})`,
    });
  }

  beginCompensation(reason: string, error = 'PermanentError: HTTP 403'): this {
    const { worker } = this.holder();
    this.row.lastError = error;
    this.transition('compensating', 'worker', worker, reason);
    this.release();
    return this;
  }

  /** The coordinator takes the saga: a new epoch, no event (no state changes). */
  takeSaga(coordinator = 'coord-1'): this {
    this.row.epoch += 1;
    this.row.holder = coordinator;
    this.row.leaseUntil = utc(this.b.now + LEASE_MS);
    this.lease = { worker: coordinator, epoch: this.row.epoch };
    return this;
  }

  /** One step's compensation: success (started, applied, success), skipped, or failed (started, failed). */
  compensate(stepId: string, outcome: 'success' | 'skipped' | 'failed' = 'success', detail?: string): this {
    if (outcome === 'skipped') {
      this.tx(stepId, 'compensate', 'skipped', { detail: detail ?? 'not reversible: a person must handle its effect' });
      return this;
    }
    this.tx(stepId, 'compensate', 'started');
    if (outcome === 'success') this.apply(stepId, { compensates: true, worker: this.holder().worker });
    this.tx(stepId, 'compensate', outcome, { detail: detail ?? null });
    return this;
  }

  incident(stepId: string, error = 'PermanentError: HTTP 403'): this {
    this.b.evidence.incidents.push({
      id: this.b.evidence.incidents.length + 1,
      job_id: this.id,
      step_id: stepId,
      error,
      status: 'manual_recovery_required',
      at: this.b.tick(),
    });
    return this;
  }

  /**
   * compensating → review by the coordinator, under its epoch, with the saga's
   * outcome: by default compensation_failed for a COMPENSATION_FAILED reason,
   * compensated for any other (pass `outcome` to write what a broken queue would).
   */
  finishCompensation(reason: string, outcome: JobOutcome = sagaOutcome(reason)): this {
    const { worker, epoch } = this.holder();
    this.row.reviewReason = reason;
    this.row.outcome = outcome;
    this.transition('review', 'coordinator', worker, reason, epoch);
    this.release();
    return this;
  }

  /**
   * A person sends the job back from review, with one more attempt allowed:
   * the reference writes a `requeue` checkpoint as human:NAME under the job's
   * epoch and the transition, together; the reason and outcome are cleared.
   */
  requeue(by = 'alice', note = 'looked at it'): this {
    this.row.maxAttempts = Math.max(this.row.maxAttempts, this.row.attempts + 1);
    this.row.nextRunAt = utc(this.b.now);
    this.row.reviewReason = null;
    this.row.outcome = null;
    this.tx('(job)', 'requeue', 'success', { worker: `human:${by}`, key: this.key, detail: note, epoch: this.row.epoch });
    this.transition('pending', 'human', null, `requeued by ${by}: ${note}`);
    return this;
  }
}

export interface JobOptions {
  key?: string;
  maxAttempts?: number;
  expect?: Expectation;
  /** Listed in evidence.accepted. @default true */
  accepted?: boolean;
  enqueueAttempts?: number;
  createdCount?: number;
  /** Two producers' enqueue calls on its key were in flight at once. @default false */
  raced?: boolean;
}

/** Where a process was at a failpoint, as the harness records it (src/drill/run-scenario.ts). */
export interface FailpointPlace {
  point: FailpointName;
  worker: string;
  job: string;
  attempt: number;
  step?: string;
}

/** Writes consistent evidence, one job's life at a time; build() hands out a copy to break. */
export class EvidenceBuilder {
  now = T0;
  private jobCount = 0;
  readonly evidence: Evidence = {
    scenario: 'crafted',
    available: { ...ALL_AVAILABLE },
    jobs: [],
    events: [],
    txLog: [],
    incidents: [],
    effects: [],
    accepted: [],
    timeline: [],
    // One clock for every stamp unless a test says otherwise (queueClock 'caller', with the clocks measured).
    queueClock: 'server',
    clocks: [],
    leases: [],
    logs: [],
    artefacts: [],
    secrets: [],
    atRest: true,
    leaseMs: LEASE_MS,
    skewMarginMs: SKEW_MS,
    retryPolicy: { baseMs: 20, capMs: 200, jitterMs: 10 },
  };

  advance(ms: number): void {
    this.now += ms;
  }

  /** The next instant: every record gets its own, 100 ms apart (well inside the skew margin). */
  tick(): string {
    this.now += 100;
    return utc(this.now);
  }

  event(fields: Omit<Transition, 'seq' | 'at'>): Transition {
    const event: Transition = { seq: this.evidence.events.length + 1, at: this.tick(), ...fields };
    this.evidence.events.push(event);
    return event;
  }

  tx(fields: Omit<TxRow, 'id' | 'at'>): TxRow {
    const row: TxRow = { id: this.evidence.txLog.length + 1, at: this.tick(), ...fields };
    this.evidence.txLog.push(row);
    return row;
  }

  /** An effect in the world's ledger; `epoch` is the one its caller showed (none by default). */
  effect(
    fields: Pick<EffectRow, 'key' | 'tool' | 'idempotent' | 'job' | 'step' | 'attempt' | 'worker' | 'compensates'> & { epoch?: number | null },
  ): EffectRow {
    const seq = this.evidence.effects.length + 1;
    const effect: EffectRow = {
      seq,
      argsDigest: digestOf(`args ${seq}`),
      pid: 4000 + seq,
      at: this.tick(),
      externalRef: `ref_${String(seq).padStart(6, '0')}`,
      result: {},
      ...fields,
      epoch: fields.epoch ?? null,
    };
    this.evidence.effects.push(effect);
    return effect;
  }

  /**
   * The harness's record of a process at a failpoint, with its structured
   * place and the detail run-scenario writes: a plain hit, a fault fired there
   * (`action`: pause, delay, crash), or the resume after a pause.
   */
  failpoint(
    kind: 'fault-hit' | 'fault-fired' | 'resume',
    process: string,
    place: FailpointPlace,
    action: FaultActionName = 'pause',
    ms = 10_000,
  ): TimelineEvent {
    const where = `${place.point}${place.step ? ` step ${place.step}` : ''} job ${place.job} attempt ${place.attempt}`;
    const detail =
      kind === 'fault-hit'
        ? `${place.worker} at ${where}`
        : kind === 'resume'
          ? `SIGCONT after the pause at ${where}`
          : `${action} at ${where} (rule 0)`;
    const fired = kind === 'fault-fired' ? { action, ...(action === 'pause' || action === 'delay' ? { ms } : {}) } : {};
    const event: TimelineEvent = { at: this.tick(), kind, process, pid: 100, detail, ...place, ...fired };
    this.evidence.timeline.push(event);
    return event;
  }

  /** Enqueues a plan job (creation event, accepted entry); ids are '1', '2', ... */
  job(plan: Plan, options: JobOptions = {}): JobScript {
    this.jobCount += 1;
    const id = String(this.jobCount);
    const key = options.key ?? digestOf(`job key ${id}`);
    const at = this.tick();
    const row: JobSnapshot = {
      id,
      key,
      action: 'plan',
      payload: JSON.stringify({ plan }),
      status: 'pending',
      outcome: null,
      attempts: 0,
      maxAttempts: options.maxAttempts ?? 3,
      holder: null,
      leaseUntil: null,
      epoch: 0,
      nextRunAt: at,
      lastError: null,
      reviewReason: null,
      resultDigest: null,
      createdAt: at,
      updatedAt: at,
    };
    this.evidence.jobs.push(row);
    this.event({
      jobId: id,
      kind: 'transition',
      from: null,
      to: 'pending',
      attempt: 0,
      epoch: 0,
      worker: null,
      actor: 'producer',
      reason: 'enqueued',
    });
    if (options.accepted !== false) {
      this.evidence.accepted.push({
        key,
        plan,
        enqueueAttempts: options.enqueueAttempts ?? 1,
        createdCount: options.createdCount ?? 1,
        raced: options.raced ?? false,
        expect: options.expect ?? { status: 'done' },
      });
    }
    return new JobScript(this, row, plan);
  }

  /** A deep copy of the evidence so far: mutate it freely. */
  build(): Evidence {
    return structuredClone(this.evidence);
  }
}

/**
 * The clean baseline: three plan jobs run to done by two workers, every effect
 * once in the ledger, a secret planted in one payload and redacted in the logs.
 */
export function cleanBuilder(): { b: EvidenceBuilder; jobs: [JobScript, JobScript, JobScript] } {
  const b = new EvidenceBuilder();
  const withSecret = { ...STEPS.write, args: { ...STEPS.write.args, api_key: SECRET } };
  const one = b.job(planOf(STEPS.write, STEPS.email)).claim('w1').run().complete();
  const two = b.job(planOf(STEPS.branch, STEPS.publish)).claim('w2').run().complete();
  const three = b.job(planOf(STEPS.read, withSecret)).claim('w1').run().complete();
  b.evidence.secrets.push(SECRET);
  b.evidence.logs.push(
    { name: 'w1.log', text: `{"event":"started"}\n{"event":"plan-done","payload":{"api_key":"[REDACTED]"}}\n` },
    { name: 'w2.log', text: '{"event":"started"}\n{"event":"plan-done"}\n' },
  );
  b.evidence.artefacts.push({ name: 'report.json', text: '{"scenario":"crafted","secret":"[REDACTED]"}' });
  b.evidence.timeline.push(
    { at: utc(T0), kind: 'spawn', process: 'w1#1', pid: 101, detail: 'worker w1' },
    { at: utc(b.now), kind: 'at-rest', detail: 'nothing left to do' },
  );
  return { b, jobs: [one, two, three] };
}

/** The clean baseline's evidence. */
export function cleanEvidence(): Evidence {
  return cleanBuilder().b.build();
}

/** The job of `id` ('2', or 2) in an evidence (for mutations). */
export function jobIn(evidence: Evidence, id: string | number): JobSnapshot {
  const job = evidence.jobs.find((j) => j.id === String(id));
  if (!job) throw new Error(`no job ${id}`);
  return job;
}

/**
 * Richer evidence where everything went right the hard way: a worker died
 * mid-call (the coordinator reconciled, the stale holder's write was refused,
 * another worker finished), an unknown outcome reconciled, a permanent error
 * sent to review and requeued by a person, a compensated saga, a saga whose
 * compensation failed, retries exhausted into review, and a raced enqueue.
 */
export function richBuilder(): {
  b: EvidenceBuilder;
  jobs: Record<'died' | 'unknown' | 'permanent' | 'saga' | 'sagaFailed' | 'exhausted' | 'raced', JobScript>;
} {
  const b = new EvidenceBuilder();
  const died = b.job(planOf(STEPS.write, STEPS.email));
  died.claim('w1').execute('write').execute('email', 'started').expire('coord-1', 'coordinator', { stepId: 'email', status: 'not_executed' });
  died.refused('w1', 1);
  died.claim('w2').execute('email').complete();

  const emailWithSecret = { ...STEPS.email, args: { ...STEPS.email.args, password: SECRET } };
  const unknown = b.job(planOf(emailWithSecret));
  unknown
    .claim('w1')
    .execute('email', 'unknown', { detail: 'UnknownOutcomeError: world call send_email: timed out; the effect may have happened', apply: true });
  unknown.reconcile('email', 'success').complete();

  const permanent = b.job(planOf(STEPS.publish), { expect: { status: 'done' } });
  permanent.claim('w1').execute('publish', 'failed', { detail: 'PermanentError: world call publish_article: HTTP 403: forbidden' });
  permanent.review('step publish (publish_article) failed for good (permanent)', 'PermanentError: HTTP 403').requeue('alice');
  permanent.claim('w2').execute('publish').complete();

  const saga = b.job(planOf(STEPS.write, STEPS.branch, STEPS.email), { expect: { status: 'compensated' } });
  saga.claim('w2').execute('write').execute('branch').execute('email', 'failed', { detail: 'PermanentError: world call send_email: HTTP 403' });
  saga.beginCompensation('step email (send_email) failed for good (permanent)').takeSaga('coord-1').compensate('branch').compensate('write');
  saga.finishCompensation('compensated: step email (send_email) failed for good; undone in reverse order: branch, write');

  const sagaFailed = b.job(planOf(STEPS.write, STEPS.publish, STEPS.email), { expect: { status: 'compensation_failed' } });
  sagaFailed.claim('w1').execute('write').execute('publish').execute('email', 'failed', { detail: 'PermanentError: HTTP 401' });
  sagaFailed
    .beginCompensation('step email (send_email) failed for good (permanent)')
    .takeSaga('coord-1')
    .compensate('publish', 'failed', 'PermanentError: HTTP 403');
  sagaFailed
    .incident('publish')
    .finishCompensation('COMPENSATION_FAILED: undoing step publish with unpublish_article failed (permanent): manual recovery required');

  const exhausted = b.job(planOf(STEPS.email), { maxAttempts: 2, expect: { status: 'review', reason: 'retries exhausted' } });
  exhausted.claim('w1').execute('email', 'failed', { detail: 'TransientError: HTTP 503' }).retry();
  exhausted
    .claim('w2')
    .execute('email', 'failed', { detail: 'TransientError: HTTP 503' })
    .review('step email (send_email) failed for good (transient, retries exhausted or manual_only)');

  const raced = b.job(planOf(STEPS.branch), { enqueueAttempts: 3, createdCount: 1, raced: true });
  raced.claim('w1').run().complete();

  b.evidence.secrets.push(SECRET);
  b.evidence.logs.push({ name: 'w1.log', text: '{"event":"plan-retry","error":"password=[REDACTED]"}\n' });
  return { b, jobs: { died, unknown, permanent, saga, sagaFailed, exhausted, raced } };
}

/** The verdict, with its evidence joined for matching; fails loudly if a line would leak the planted secret. */
export function judged(invariant: Invariant, evidence: Evidence): Verdict & { text: string } {
  const verdict = invariant.check(evidence);
  const text = verdict.evidence.join('\n');
  if (text.includes(SECRET)) throw new Error(`a verdict printed the planted secret: ${text}`);
  return { ...verdict, text };
}
