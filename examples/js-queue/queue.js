// @ts-check
import { defaultRelease, parseUtc, retryDelayMs, utc } from 'queue-drill/adapter';
import { StoreFile } from './store.js';

/*
 * The queue's operations, each one read-modify-write of the store. Jobs move
 * through the drill's state machine (ALLOWED_TRANSITIONS in
 * queue-drill/adapter): pending -> running (a claim) -> done | retry | review
 * | compensating; retry -> running; compensating -> review (the coordinator);
 * review -> pending (a person only). Every claim bumps the job's epoch, and a
 * holder's write (a renewal, a settlement) is fenced by job, holder and epoch:
 * a stale one changes nothing and is recorded as `refused`. Every claim first
 * takes back the leases that expired, so a dead worker's job comes back even
 * with no coordinator. Times come from the connection's clock, never Date.now().
 */

/**
 * @typedef {import('queue-drill/adapter').Actor} Actor
 * @typedef {import('queue-drill/adapter').Claim} Claim
 * @typedef {import('queue-drill/adapter').ExpiredLeaseRelease} ExpiredLeaseRelease
 * @typedef {import('queue-drill/adapter').JobStatus} JobStatus
 * @typedef {import('queue-drill/adapter').Settlement} Settlement
 * @typedef {import('queue-drill/adapter').Writer} Writer
 * @typedef {import('queue-drill/adapter').WriteResult} WriteResult
 * @typedef {import('./store.js').Job} Job
 * @typedef {import('./store.js').State} State
 * @typedef {{ actor: Actor, worker: string | null, reason: string, retryDelayMs?: number }} Cause who changed a job, and why
 * @typedef {{ set: Partial<Job>, reason: string, retryDelayMs?: number }} Write what a holder's write changes
 */

// Long before any clock a drill uses: no skew margin brings an expired lease back.
const LONG_AGO = utc(0);

/** A held job as the claim its holder shows. @param {Job} job @returns {Claim} */
function claimOf({ id: jobId, attempts: attempt, epoch, holder, key, action, payload, maxAttempts, leaseUntil }) {
  return { jobId, attempt, epoch, holder: holder ?? '', key, action, payload, maxAttempts, token: null, leaseUntil };
}

/** Whether `writer` still holds `job`: running or compensating, under its holder and epoch. @param {Job} job @param {Writer} writer */
function holds(job, writer) {
  return (job.status === 'running' || job.status === 'compensating') && job.holder === writer.holder && job.epoch === writer.epoch;
}

/**
 * Records a change of `job`'s status (from null: its creation), under its attempt and epoch.
 * @param {State} state @param {Job} job @param {JobStatus | null} from @param {Cause} cause
 */
function record(state, job, from, { actor, worker, reason, retryDelayMs }) {
  const { id: jobId, status: to, attempts: attempt, epoch, updatedAt: at } = job;
  const seq = state.history.length + 1;
  state.history.push({ seq, jobId, kind: 'transition', from, to, attempt, epoch, worker, actor, reason, at, retryDelayMs });
}

export class JsQueue {
  /** @param {string} file @param {import('queue-drill/adapter').ConnectOptions} options */
  constructor(file, options) {
    this.store = new StoreFile(file);
    this.options = options;
  }

  now() {
    return this.options.clock.now();
  }

  /** Whether `job`'s lease ended more than the skew margin ago. @param {Job} job */
  expired(job) {
    return job.leaseUntil !== null && parseUtc(job.leaseUntil) < this.now() - this.options.skewMarginMs;
  }

  /**
   * Changes `job`; a change of its status is recorded, and one out of a held state releases the lease.
   * @param {State} state @param {Job} job @param {Partial<Job>} set @param {Cause} cause
   */
  change(state, job, set, cause) {
    const from = job.status;
    Object.assign(job, set, { updatedAt: utc(this.now()) });
    if (job.status === from) return;
    if (from === 'running' || from === 'compensating') Object.assign(job, { holder: null, leaseUntil: null });
    record(state, job, from, cause);
  }

  /** @param {import('queue-drill/adapter').EnqueueRequest} request @returns {Promise<import('queue-drill/adapter').EnqueueResult>} */
  enqueue({ key, action, payload, maxAttempts }) {
    return this.store.update((state) => {
      const existing = state.jobs.find((job) => job.key === key);
      if (existing) return { outcome: 'deduplicated', jobId: existing.id };
      const at = utc(this.now());
      /** @type {Job} */
      const job = {
        id: String(state.jobs.length + 1),
        key,
        action,
        payload,
        status: 'pending',
        outcome: null,
        attempts: 0,
        maxAttempts,
        epoch: 0,
        holder: null,
        leaseUntil: null,
        nextRunAt: at,
        lastError: null,
        reviewReason: null,
        resultDigest: null,
        createdAt: at,
        updatedAt: at,
      };
      state.jobs.push(job);
      record(state, job, null, { actor: 'producer', worker: null, reason: `enqueued under key ${key}` });
      return { outcome: 'created', jobId: job.id };
    });
  }

  /** Takes every expired lease back, as defaultRelease says; how many. @param {State} state @param {Actor} actor @param {string} worker */
  sweep(state, actor, worker) {
    const expired = state.jobs.filter((job) => job.status === 'running' && this.expired(job));
    for (const job of expired) {
      const release = defaultRelease({ attempts: job.attempts, max_attempts: job.maxAttempts, leased_by: job.holder, lease_until: job.leaseUntil });
      this.release(state, job, release, { actor, worker, reason: release.reason });
    }
    return expired.length;
  }

  /** @param {State} state @param {Job} job @param {ExpiredLeaseRelease} release @param {Cause} cause */
  release(state, job, { to, reason }, cause) {
    const review = to === 'review' ? { reviewReason: reason } : {};
    this.change(state, job, { status: to, outcome: to === 'review' ? 'review' : null, nextRunAt: utc(this.now()), ...review }, cause);
  }

  /** The oldest ready job (pending, or a retry fallen due) under a fresh lease and epoch, or null. @param {string} workerId */
  claim(workerId) {
    return this.store.update((state) => {
      this.sweep(state, 'worker', workerId);
      const now = utc(this.now());
      // Fixed-width UTC: string order is time order.
      const due = (/** @type {Job} */ j) => j.status === 'pending' || (j.status === 'retry' && (j.nextRunAt ?? now) <= now);
      const job = state.jobs.find((j) => due(j) && j.attempts < j.maxAttempts);
      if (!job) return null;
      const leaseUntil = utc(this.now() + this.options.leaseMs);
      const set = { attempts: job.attempts + 1, epoch: job.epoch + 1, holder: workerId, leaseUntil };
      const reason = `claimed by ${workerId}, lease until ${leaseUntil}`;
      this.change(state, job, { status: 'running', ...set }, { actor: 'worker', worker: workerId, reason });
      return claimOf(job);
    });
  }

  /**
   * A holder's write: made if `claim` still holds the job (for a renewal, with
   * its lease not run out), else refused, and the refusal recorded. `to` is
   * the state the write asks for.
   * @param {Claim} claim @param {Actor} actor @param {string} what @param {JobStatus} to @param {(job: Job) => Write} write
   * @returns {Promise<WriteResult>}
   */
  fenced(claim, actor, what, to, write) {
    return this.store.update((state) => {
      const job = state.jobs.find((j) => j.id === claim.jobId);
      if (!job) return { ok: false, refused: `${what} refused: no job ${claim.jobId}` };
      const held = holds(job, claim);
      if (held && !(what === 'heartbeat' && this.expired(job))) {
        const { set, reason, retryDelayMs } = write(job);
        this.change(state, job, set, { actor, worker: claim.holder, reason, retryDelayMs });
        return { ok: true, status: job.status };
      }
      const holder = job.holder ? `held by ${job.holder} under epoch ${job.epoch}` : 'not leased';
      const why = held ? `expired at ${job.leaseUntil}` : `was lost (job is ${job.status}, ${holder})`;
      const reason = `${what} refused: lease of ${claim.holder} under epoch ${claim.epoch} ${why}`;
      // The job's attempt count, not the claim's: the history's attempts never go backwards.
      const { id: jobId, status: from, attempts: attempt } = job;
      const refused = { seq: state.history.length + 1, jobId, kind: /** @type {const} */ ('refused'), from, to, attempt, epoch: claim.epoch };
      state.history.push({ ...refused, worker: claim.holder, actor, reason, at: utc(this.now()) });
      return { ok: false, refused: reason };
    });
  }

  /** Runs `write` (synchronous) under the lock if `writer` still holds its job; false if not. @param {Writer} writer @param {() => boolean} write */
  whileHolding(writer, write) {
    return this.store.update((state) => {
      const job = state.jobs.find((j) => j.id === writer.jobId);
      return job !== undefined && holds(job, writer) && write();
    });
  }

  /** Renews a held lease; the new end is returned for the worker to report. @param {Claim} claim */
  async heartbeat(claim) {
    const leaseUntil = utc(this.now() + this.options.leaseMs);
    const write = await this.fenced(claim, 'worker', 'heartbeat', 'running', () => ({ set: { leaseUntil }, reason: 'lease renewed' }));
    return { write, leaseUntil };
  }

  /**
   * The one write a settlement asks for.
   * @param {Claim} claim @param {Exclude<Settlement, { kind: 'lease_lost' }>} settlement @returns {Promise<WriteResult>}
   */
  settle(claim, settlement) {
    switch (settlement.kind) {
      case 'done':
        return this.fenced(claim, 'worker', 'complete', 'done', () => ({
          set: { status: 'done', outcome: 'done', resultDigest: settlement.digest, lastError: null, reviewReason: null },
          reason: `done, verified result ${settlement.digest.slice(0, 12)}`,
        }));
      case 'retry':
        return this.fenced(claim, 'worker', 'retry', 'retry', (job) => {
          if (job.attempts >= job.maxAttempts) {
            const reason = `retries exhausted (${job.attempts} of ${job.maxAttempts}): ${settlement.error}`;
            return { set: { status: 'review', outcome: 'review', reviewReason: reason, lastError: settlement.error }, reason };
          }
          const delay = retryDelayMs(job.attempts, this.options.retryDelay, this.options.random);
          const reason = `retry in ${delay} ms: ${settlement.error}`;
          return { set: { status: 'retry', nextRunAt: utc(this.now() + delay), lastError: settlement.error }, reason, retryDelayMs: delay };
        });
      case 'review':
        return this.fenced(claim, 'worker', 'review', 'review', (job) => ({
          set: {
            status: 'review',
            outcome: settlement.awaitingApproval ? 'awaiting_approval' : 'review',
            reviewReason: settlement.reason,
            lastError: settlement.error ?? job.lastError,
          },
          reason: settlement.reason,
        }));
      case 'compensate':
        return this.fenced(claim, 'worker', 'begin compensation', 'compensating', () => ({
          set: { status: 'compensating', lastError: settlement.error },
          reason: settlement.reason,
        }));
      default: {
        /** @type {never} */
        const unknown = settlement;
        throw new Error(`unknown settlement ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** Moves a held lease's end far into the past (no event: the lease simply ran out). @param {string} jobId */
  async expireLease(jobId) {
    await this.store.update((state) => {
      const job = state.jobs.find((j) => j.id === jobId);
      if (job?.holder && (job.status === 'running' || job.status === 'compensating')) job.leaseUntil = LONG_AGO;
    });
  }

  /** Running jobs whose lease expired, each as its last holder's claim. */
  async expiredLeases() {
    return this.store
      .read()
      .jobs.filter((job) => job.status === 'running' && this.expired(job))
      .map(claimOf);
  }

  /**
   * Takes an expired lease back if it is still that one (same epoch, still
   * expired), running `alongside` (synchronous) under the same lock first.
   * @param {Claim} expired @param {ExpiredLeaseRelease} release @param {string} by @param {(job: Job) => void} [alongside]
   */
  releaseExpired(expired, release, by, alongside) {
    return this.store.update((state) => {
      const job = state.jobs.find((j) => j.id === expired.jobId);
      if (job?.status !== 'running' || job.epoch !== expired.epoch || !this.expired(job)) return false;
      alongside?.(job);
      this.release(state, job, release, { actor: 'coordinator', worker: by, reason: release.reason });
      return true;
    });
  }

  /** The sweep every claim makes, on its own; how many jobs it moved. */
  maintain() {
    return this.store.update((state) => this.sweep(state, 'coordinator', 'maintenance'));
  }

  /** The coordinator takes the oldest compensating job nobody else holds, under a fresh lease and epoch. @param {string} coordinatorId */
  claimCompensation(coordinatorId) {
    return this.store.update((state) => {
      const free = (/** @type {Job} */ j) => j.holder === null || j.holder === coordinatorId || this.expired(j);
      const job = state.jobs.find((j) => j.status === 'compensating' && free(j));
      if (!job) return null;
      const leaseUntil = utc(this.now() + this.options.leaseMs);
      // No change of status, so nothing for the history: the epoch moves on, fencing off the coordinator before.
      Object.assign(job, { epoch: job.epoch + 1, holder: coordinatorId, leaseUntil, updatedAt: utc(this.now()) });
      return claimOf(job);
    });
  }

  /** Ends a saga in review. @param {Claim} claim @param {'compensated' | 'compensation_failed'} outcome @param {string} reason */
  finishCompensation(claim, outcome, reason) {
    const set = { outcome, reviewReason: reason };
    return this.fenced(claim, 'coordinator', 'finish compensation', 'review', () => ({ set: { status: 'review', ...set }, reason }));
  }

  /**
   * A person sends a job in review back to pending, one more attempt allowed,
   * running `alongside` under the same lock first; false when it is not in review.
   * @param {string} jobId @param {string} by @param {string} note @param {(job: Job) => void} [alongside]
   */
  requeueFromReview(jobId, by, note, alongside) {
    return this.store.update((state) => {
      const job = state.jobs.find((j) => j.id === jobId);
      if (job?.status !== 'review') return false;
      alongside?.(job);
      const maxAttempts = Math.max(job.maxAttempts, job.attempts + 1);
      const set = { maxAttempts, nextRunAt: utc(this.now()), outcome: null, reviewReason: null };
      this.change(state, job, { status: 'pending', ...set }, { actor: 'human', worker: null, reason: `requeued by ${by}: ${note}` });
      return true;
    });
  }

  /** Whether nothing is left to run: no job pending, retrying or running. */
  drained() {
    return !this.store.read().jobs.some((job) => job.status === 'pending' || job.status === 'retry' || job.status === 'running');
  }
}
