import { setImmediate } from 'node:timers/promises';
import { secretsInPayload, storableError } from '../kernel/redact.js';
import type { SagaStore } from '../port/checkpoint.js';
import type { Claim, DeliveryHandler, Settlement, WorkOptions, WriteResult } from '../port/delivery.js';
import { waitForWork } from '../port/wait-for-work.js';
import type { JobRow } from './job.js';
import type { LeaseStore } from './lease-store.js';
import { leaseOf, toClaim, toWriteResult } from './rows.js';

/*
 * The reference queue's consumption loop: claim the oldest ready job, hand it
 * to the handler while renewing its lease from the claim on, then make the one
 * write the handler's settlement asks for, fenced by the claim's lease. A
 * refused renewal (someone else owns the job now) or an attempt past its
 * deadline aborts the delivery's signal. A handler that throws is a bug, not a
 * job failure: the lease expires, the job is taken back, this worker goes on.
 */
export async function leaseWorker(
  store: LeaseStore,
  saga: SagaStore,
  handler: DeliveryHandler,
  options: WorkOptions & { leaseMs: number },
): Promise<{ processed: number }> {
  let processed = 0;
  // The next job, when the done write of the last one claimed it in the same transaction.
  const handoff: Handoff = { next: null };
  // A job the last done write claimed is delivered even if the stop came meanwhile: it is held, and would otherwise
  // wait out its lease.
  while (handoff.next !== null || (!options.stop.aborted && (options.maxJobs === 0 || processed < options.maxJobs))) {
    const changeCount = store.wakeSignals?.changeCount();
    const row = handoff.next ?? (await store.claim(options.workerId));
    handoff.next = null;
    if (!row) {
      if (options.exitWhenDrained && drained(await store.counts())) break;
      await waitForWork(store.wakeSignals, changeCount, options.pollMs, options.stop);
      continue;
    }
    const claim = toClaim(row);
    // Never claimed past maxJobs, nor once the worker is stopping (SIGTERM: finish this job, take no other).
    const mayClaimNext = () => !options.stop.aborted && (options.maxJobs === 0 || processed + 1 < options.maxJobs);
    try {
      await deliver(store, saga, claim, handler, options, { handoff, mayClaimNext });
    } catch (error) {
      options.log({ event: 'job-crashed', jobId: claim.jobId, error: storableError(error, secretsInPayload(parsedOrNull(claim.payload))) });
    }
    processed++;
    // A turn of the event loop between two jobs: a store whose calls are synchronous (SQLite) and a handler
    // with nothing to wait for settle in promises alone, and without it a worker with a backlog would hear
    // no SIGTERM (its stop) and run no timer until the backlog was gone.
    await setImmediate();
  }
  return { processed };
}

function drained(counts: Record<string, number>): boolean {
  return (counts.pending ?? 0) + (counts.retry ?? 0) + (counts.running ?? 0) === 0;
}

function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

/** Where a delivery leaves the job its done write claimed next: read by the loop even when the delivery throws after it. */
interface Handoff {
  next: JobRow | null;
}

async function deliver(
  store: LeaseStore,
  saga: SagaStore,
  claim: Claim,
  handler: DeliveryHandler,
  options: WorkOptions & { leaseMs: number },
  next: { handoff: Handoff; mayClaimNext: () => boolean },
): Promise<void> {
  options.log({ event: 'claimed', jobId: claim.jobId, attempt: claim.attempt, epoch: claim.epoch });
  if (claim.leaseUntil !== null) options.onLease?.(claim, claim.leaseUntil, 'claim');
  const lost = new AbortController();
  const claimedAt = Date.now();
  // Renew well before expiry; a refused renewal means someone else owns the job now.
  const renewal = setInterval(
    async () => {
      if (lost.signal.aborted) return;
      if (Date.now() - claimedAt > options.maxAttemptMs) {
        options.log({ event: 'attempt-deadline', jobId: claim.jobId, attempt: claim.attempt, maxAttemptMs: options.maxAttemptMs });
        lost.abort();
        return;
      }
      await options.beforeRenewal?.(claim);
      if (lost.signal.aborted) return;
      try {
        const renewed = await store.heartbeat(leaseOf(claim));
        if (!renewed.ok) {
          options.log({ event: 'lease-lost', jobId: claim.jobId, epoch: claim.epoch, current: renewed.current });
          lost.abort();
        } else if (renewed.leaseUntil !== undefined) {
          options.onLease?.(claim, renewed.leaseUntil, 'renewal');
        }
      } catch (error) {
        // A store that cannot be reached now: the next renewal tries again, and the lease's expiry decides.
        options.log({ event: 'renewal-failed', jobId: claim.jobId, error: storableError(error) });
      }
    },
    Math.max(10, Math.floor(options.leaseMs / 3)),
  );
  try {
    const log = await saga.logFor(claim);
    const settlement = await handler({ ...claim, signal: lost.signal, saga: log });
    const write = await settleAndClaimNext(store, claim, settlement, next);
    options.onSettled?.(claim, settlement, write);
  } finally {
    clearInterval(renewal);
  }
}

/**
 * The settlement's write; a done one, where the store joins them and the worker may take another job, in one
 * transaction with the claim of the next (left in the handoff): one transaction a job while there is a backlog.
 */
async function settleAndClaimNext(
  store: LeaseStore,
  claim: Claim,
  settlement: Settlement,
  next: { handoff: Handoff; mayClaimNext: () => boolean },
): Promise<WriteResult | null> {
  if (settlement.kind !== 'done' || !store.completeAndClaim || !next.mayClaimNext()) return settle(store, claim, settlement);
  const { write, next: row } = await store.completeAndClaim(leaseOf(claim), settlement.digest, claim.holder);
  next.handoff.next = row;
  return toWriteResult(write);
}

/** The one write a settlement asks for, under the claim's lease (none when the holder already knows it lost the job). */
export async function settle(store: LeaseStore, claim: Claim, settlement: Settlement): Promise<WriteResult | null> {
  const lease = leaseOf(claim);
  switch (settlement.kind) {
    case 'done':
      return toWriteResult(await store.complete(lease, settlement.digest));
    case 'retry':
      return toWriteResult(await store.retry(lease, settlement.error));
    case 'review':
      return toWriteResult(
        await store.review(lease, settlement.reason, settlement.error, settlement.awaitingApproval ? 'awaiting_approval' : 'review'),
      );
    case 'compensate':
      return toWriteResult(await store.beginCompensation(lease, settlement.reason, settlement.error));
    case 'lease_lost':
      return null;
    default: {
      const unreachable: never = settlement;
      throw new Error(`unknown settlement ${JSON.stringify(unreachable)}`);
    }
  }
}
