import { randomUUID } from 'node:crypto';
import { type Job, Worker } from 'bullmq';
import type { ManualOps } from '../../port/adapter.js';
import type { Claim, Settlement, WriteResult } from '../../port/delivery.js';
import { MAX_STALLED_COUNT, stalledIntervalFor } from './fit.js';
import { QUEUE_NAME } from './provision.js';
import { settleJob } from './settle.js';
import type { WorkContext } from './work-loop.js';
import { claimOf } from './work-loop.js';

/**
 * Claim and settle by hand, through BullMQ's manual mode: a Worker per holder
 * that never runs a processor (`getNextJob(token)`), with its stalled checker
 * started, as BullMQ's docs ask of manual workers, so an expired lock is taken
 * back by BullMQ itself.
 */
export function manualOps(context: WorkContext): ManualOps & { close(): Promise<void> } {
  const workers = new Map<string, Worker>();
  const jobs = new Map<string, Job>();
  const workerFor = async (workerId: string): Promise<Worker> => {
    let worker = workers.get(workerId);
    if (!worker) {
      worker = new Worker(QUEUE_NAME, null, {
        connection: context.client,
        prefix: context.prefix,
        name: workerId,
        autorun: false,
        lockDuration: context.leaseMs,
        stalledInterval: stalledIntervalFor(context.leaseMs),
        maxStalledCount: MAX_STALLED_COUNT,
      });
      worker.on('error', () => {});
      workers.set(workerId, worker);
      // Not awaited: the first claim need not wait for the checker's first pass.
      void worker.startStalledCheckTimer().catch(() => undefined);
    }
    return worker;
  };
  const write = async (claim: Claim, settlement: Settlement): Promise<WriteResult> => {
    const job = jobs.get(`${claim.jobId}/${claim.token}`);
    if (!job) return { ok: false, refused: `no delivery of job ${claim.jobId} under this token in this process` };
    return (await settleJob(job, claim.token ?? '', settlement, context.client, context.keys)) ?? { ok: false, refused: 'nothing written' };
  };
  return {
    async claim(workerId) {
      const token = `${workerId}:${randomUUID()}`;
      const job = await (await workerFor(workerId)).getNextJob(token, { block: false });
      if (!job) return null;
      jobs.set(`${job.id}/${token}`, job);
      return claimOf(job, token, workerId, context.leaseMs);
    },
    async heartbeat(claim) {
      const job = jobs.get(`${claim.jobId}/${claim.token}`);
      if (!job) return { ok: false, refused: `no delivery of job ${claim.jobId} under this token in this process` };
      // extendLock answers 1 when the token still holds the lock, 0 when it does not.
      const extended = await job.extendLock(claim.token ?? '', context.leaseMs);
      return extended === 1 ? { ok: true, status: 'running' } : { ok: false, refused: `lock of job ${claim.jobId} is not held by this token` };
    },
    complete: (claim, digest) => write(claim, { kind: 'done', digest }),
    retry: (claim, error) => write(claim, { kind: 'retry', error }),
    review: (claim, reason, error) => write(claim, { kind: 'review', reason, ...(error === undefined ? {} : { error }) }),
    async close() {
      await Promise.all([...workers.values()].map((w) => w.close().catch(() => undefined)));
    },
  };
}
