import type { JobStatus } from '../../kernel/vocabulary.js';
import type { ExpiredLeaseRelease } from '../../port/adapter.js';
import type { Incident, TxEntry, TxRow } from '../../port/checkpoint.js';
import type { JobEvent, JobRow, Lease, LeaseWriteResult } from '../job.js';
import type { ExpiredLease, LeaseStore } from '../lease-store.js';
import type { SqliteQueue } from './sqlite-queue.js';

/**
 * The SQLite queue (or a broken variant of it) as the reference queue's
 * LeaseStore. SQLite's calls are synchronous and each is one immediate
 * transaction, so the async shape costs nothing but a resolved promise, and a
 * variant that overrides one of SqliteQueue's methods is seen here as it is.
 */
export class SqliteLeaseStore implements LeaseStore {
  readonly wakeSignals: LeaseStore['wakeSignals'];
  readonly completeAndClaim: LeaseStore['completeAndClaim'];

  constructor(readonly queue: SqliteQueue) {
    const signals = queue.wakeSignals;
    this.wakeSignals = signals && { changeCount: signals.changeCount, msUntilDue: async () => signals.msUntilDue() };
    this.completeAndClaim = queue.batchesClaims
      ? async (lease, digest, workerId) => {
          const { write, next } = queue.completeAndClaim(lease, digest, workerId);
          return { write, next: next?.job ?? null };
        }
      : undefined;
  }

  async enqueue(request: { key: string; action: string; payloadJson: string; maxAttempts: number }): Promise<{ created: boolean; jobId: number }> {
    return this.queue.enqueue({ key: request.key, action: request.action, payload: request.payloadJson, maxAttempts: request.maxAttempts });
  }

  async claim(workerId: string): Promise<JobRow | null> {
    return this.queue.claim(workerId)?.job ?? null;
  }

  async heartbeat(lease: Lease): Promise<LeaseWriteResult> {
    return this.queue.heartbeat(lease);
  }

  async complete(lease: Lease, digest: string): Promise<LeaseWriteResult> {
    return this.queue.complete(lease, digest);
  }

  async retry(lease: Lease, error: string): Promise<LeaseWriteResult> {
    return this.queue.retry(lease, error);
  }

  async review(lease: Lease, reason: string, error?: string, outcome: 'review' | 'awaiting_approval' = 'review'): Promise<LeaseWriteResult> {
    return this.queue.review(lease, reason, error, outcome);
  }

  async beginCompensation(lease: Lease, reason: string, error: string): Promise<LeaseWriteResult> {
    return this.queue.beginCompensation(lease, reason, error);
  }

  async claimCompensation(coordinatorId: string): Promise<JobRow | null> {
    return this.queue.claimCompensation(coordinatorId)?.job ?? null;
  }

  async finishCompensation(lease: Lease, outcome: 'compensated' | 'compensation_failed', reason: string): Promise<LeaseWriteResult> {
    return this.queue.finishCompensation(lease, outcome, reason);
  }

  async expiredLeases(): Promise<JobRow[]> {
    return this.queue.expiredLeases();
  }

  async releaseExpired(job: ExpiredLease, release: ExpiredLeaseRelease, by: string, checkpoint?: TxEntry): Promise<boolean> {
    return this.queue.releaseExpired(job, release, by, checkpoint);
  }

  async expireLease(jobId: number): Promise<void> {
    this.queue.expireLease(jobId);
  }

  async requeueFromReview(jobId: number, by: string, note: string, checkpoint?: TxEntry): Promise<boolean> {
    return this.queue.requeueFromReview(jobId, by, note, checkpoint);
  }

  async appendTx(lease: Lease, entry: TxEntry): Promise<boolean> {
    return this.queue.appendTx(lease, entry);
  }

  async readTx(jobId?: number): Promise<TxRow[]> {
    return this.queue.txLog(jobId);
  }

  async recordIncident(jobId: number, stepId: string, error: string): Promise<void> {
    this.queue.recordIncident(jobId, stepId, error);
  }

  async incidents(jobId?: number): Promise<Incident[]> {
    return this.queue.incidents(jobId);
  }

  async jobs(): Promise<JobRow[]> {
    return this.queue.jobs();
  }

  async events(): Promise<JobEvent[]> {
    return this.queue.events();
  }

  async counts(): Promise<Record<JobStatus, number>> {
    return this.queue.counts();
  }

  async progress(): Promise<string> {
    return this.queue.progress();
  }

  async close(): Promise<void> {
    this.queue.close();
  }
}
