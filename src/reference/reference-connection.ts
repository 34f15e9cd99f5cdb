import type { QueueConnection } from '../port/adapter.js';
import type { SagaLog, SagaStore, Writer } from '../port/checkpoint.js';
import { defaultRelease } from '../port/release.js';
import type { LeaseStore } from './lease-store.js';
import { leaseWorker } from './lease-worker.js';
import { leaseOf, toClaim, toSnapshot, toTransition, toWriteResult } from './rows.js';

/** The saga's log inside the reference store: every checkpoint guarded by the writer's live lease, in the store's own transaction. */
function inQueueSagaStore(store: LeaseStore): SagaStore {
  const id = (jobId: string | undefined) => (jobId === undefined ? undefined : Number(jobId));
  return {
    async logFor(writer: Writer): Promise<SagaLog> {
      const lease = leaseOf(writer);
      return {
        append: (entry) => store.appendTx(lease, entry),
        rows: () => store.readTx(lease.jobId),
        incident: (stepId, error) => store.recordIncident(lease.jobId, stepId, error),
      };
    },
    rows: (jobId) => store.readTx(id(jobId)),
    incidents: (jobId) => store.incidents(id(jobId)),
  };
}

/**
 * A connection to a queue of the reference design, whatever store holds it:
 * every part of the contract, from the store's operations. SQLite and
 * PostgreSQL differ only in the LeaseStore they pass.
 */
export function referenceConnection(store: LeaseStore, options: { leaseMs: number }): QueueConnection {
  const saga = inQueueSagaStore(store);
  return {
    async enqueue(request) {
      const result = await store.enqueue({
        key: request.key,
        action: request.action,
        payloadJson: request.payload,
        maxAttempts: request.maxAttempts,
      });
      return { outcome: result.created ? 'created' : 'deduplicated', jobId: String(result.jobId) };
    },
    work: (handler, work) => leaseWorker(store, saga, handler, { ...work, leaseMs: options.leaseMs }),
    async snapshot(options) {
      const [jobs, events] = await Promise.all([store.jobs(), options?.history === false ? [] : store.events()]);
      return { jobs: jobs.map(toSnapshot), history: events.map(toTransition) };
    },
    progress: () => store.progress(),
    saga,
    manual: {
      async claim(workerId) {
        const row = await store.claim(workerId);
        return row ? toClaim(row) : null;
      },
      heartbeat: async (claim) => toWriteResult(await store.heartbeat(leaseOf(claim))),
      complete: async (claim, digest) => toWriteResult(await store.complete(leaseOf(claim), digest)),
      retry: async (claim, error) => toWriteResult(await store.retry(leaseOf(claim), error)),
      review: async (claim, reason, error) => toWriteResult(await store.review(leaseOf(claim), reason, error)),
    },
    takeover: {
      expireLease: (jobId) => store.expireLease(Number(jobId)),
      expiredLeases: async () => (await store.expiredLeases()).map(toClaim),
      releaseExpired: (expired, release, by, checkpoint) =>
        store.releaseExpired({ id: Number(expired.jobId), lease_fence: expired.epoch, attempts: expired.attempt }, release, by, checkpoint),
      // The sweep every claim makes first, on its own: each expired lease to retry, or to review on its last attempt.
      async maintain() {
        let moved = 0;
        for (const row of await store.expiredLeases()) {
          if (await store.releaseExpired(row, defaultRelease(row), 'maintenance')) moved++;
        }
        return moved;
      },
    },
    compensation: {
      async claim(coordinatorId) {
        const row = await store.claimCompensation(coordinatorId);
        return row ? toClaim(row) : null;
      },
      finish: async (claim, outcome, reason) => toWriteResult(await store.finishCompensation(leaseOf(claim), outcome, reason)),
    },
    human: {
      requeueFromReview: (jobId, by, note, checkpoint) => store.requeueFromReview(Number(jobId), by, note, checkpoint),
    },
    ...(store.wakeSignals ? { wakeSignals: store.wakeSignals } : {}),
    close: () => store.close(),
  };
}
