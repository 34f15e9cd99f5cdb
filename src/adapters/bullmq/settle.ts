import { type Job, UnrecoverableError } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Settlement, WriteResult } from '../../port/delivery.js';
import type { QueueKeys } from './job-data.js';

/** BullMQ's words for a holder's write it refused: the lock is gone, or another holder's (src/classes/scripts.ts, finishedErrors). */
const REFUSED = /Missing lock for job|Lock mismatch for job|is not in the active state|Missing key for job/;

/**
 * The one write a settlement asks for, through BullMQ's own moves and under
 * the delivery's lock token: BullMQ refuses it when the token no longer holds
 * the job's lock. BullMQ has no review state: review is its failed set
 * (UnrecoverableError skips the attempts left); it has no compensating state
 * either, so a job to compensate goes there too, said so in its reason.
 */
export async function settleJob(job: Job, token: string, settlement: Settlement, client: Redis, keys: QueueKeys): Promise<WriteResult | null> {
  try {
    switch (settlement.kind) {
      case 'done':
        await job.moveToCompleted(settlement.digest, token, false);
        return { ok: true, status: 'done' };
      case 'retry': {
        // BullMQ's own rule (Job.shouldRetryJob): another attempt while attemptsMade + 1 < attempts.
        const willRetry = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
        await job.moveToFailed(new Error(settlement.error), token, false);
        return { ok: true, status: willRetry ? 'retry' : 'review' };
      }
      case 'review':
        await job.moveToFailed(new UnrecoverableError(settlement.reason), token, false);
        // Only once BullMQ accepted the fenced move: the one fact its failed set cannot hold.
        if (settlement.awaitingApproval) await client.hset(keys.outcomes, job.id ?? '', 'awaiting_approval');
        return { ok: true, status: 'review' };
      case 'compensate':
        await job.moveToFailed(new UnrecoverableError(`to compensate (BullMQ has no compensating state): ${settlement.reason}`), token, false);
        return { ok: true, status: 'review' };
      case 'lease_lost':
        return null;
      default: {
        const unreachable: never = settlement;
        throw new Error(`unknown settlement ${JSON.stringify(unreachable)}`);
      }
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (REFUSED.test(message)) return { ok: false, refused: message };
    throw error;
  }
}
