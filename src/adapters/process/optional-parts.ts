import type { CompensationOps, HumanOps, ManualOps, QueueConnection, TakeoverOps } from '../../port/adapter.js';
import type { TxEntry, Writer } from '../../port/checkpoint.js';
import type { Claim } from '../../port/delivery.js';
import type { ChildChannel } from './child-channel.js';
import { txEntryWire } from './child-saga.js';
import type { ChildHello, OptionalPart } from './hello.js';
import { count, MalformedMessageError, toClaim, toJob } from './protocol.js';
import { fencedWrite, settlementWire } from './settlement-wire.js';

/** Where a checkpoint that goes with a release or a requeue is written: null when the child commits it with the move itself. */
type AppendAs = ((writer: Writer, entry: TxEntry) => Promise<boolean>) | null;

function claimOrNull(body: Record<string, unknown>, op: string): Claim | null {
  return body.claim === null || body.claim === undefined ? null : toClaim(body.claim, `the answer to ${op}.claim`);
}

function flag(body: Record<string, unknown>, name: string, op: string): boolean {
  if (typeof body[name] !== 'boolean') throw new MalformedMessageError(`the answer to ${op}.${name} must be true or false`);
  return body[name] as boolean;
}

function manual(channel: ChildChannel): ManualOps {
  const settle = (claim: Claim, settlement: Parameters<typeof settlementWire>[0]) =>
    fencedWrite(channel, 'settle', claim, { settlement: settlementWire(settlement) });
  return {
    claim: async (workerId) => claimOrNull(await channel.request('claim', { worker_id: workerId }), 'claim'),
    heartbeat: async (claim) => {
      const result = await fencedWrite(channel, 'heartbeat', claim, {});
      return result.ok ? { ok: true, status: 'running' } : result;
    },
    complete: (claim, digest) => settle(claim, { kind: 'done', digest }),
    retry: (claim, error) => settle(claim, { kind: 'retry', error }),
    review: (claim, reason, error) => settle(claim, { kind: 'review', reason, ...(error === undefined ? {} : { error }) }),
  };
}

/*
 * The checkpoint that goes with a release (a reconciliation's answer) commits
 * with it in the child when the child keeps the saga's log. Beside the run, it
 * lives in the saga file, the release in the child's store: they cannot commit
 * together. It is written first, under the expired lease's epoch (nobody can
 * hold a later one while the job is still running under it): if the release
 * then finds the lease revived, the checkpoint stays as a true record of what
 * the world said, and the revived holder's own later checkpoints follow it.
 */
function takeover(channel: ChildChannel, appendAs: AppendAs): TakeoverOps {
  return {
    expireLease: async (jobId) => {
      await channel.request('expire_lease', { job_id: jobId });
    },
    expiredLeases: async () => {
      const body = await channel.request('expired_leases');
      if (!Array.isArray(body.claims)) throw new MalformedMessageError('the answer to expired_leases.claims must be a list');
      return body.claims.map((c, i) => toClaim(c, `the answer to expired_leases.claims[${i}]`));
    },
    releaseExpired: async (expired, release, by, checkpoint) => {
      if (checkpoint && appendAs) await appendAs({ jobId: expired.jobId, attempt: expired.attempt, epoch: expired.epoch, holder: by }, checkpoint);
      const body = await channel.request('release_expired', {
        ...(checkpoint && !appendAs ? { checkpoint: txEntryWire(checkpoint) } : {}),
        job_id: expired.jobId,
        epoch: expired.epoch,
        attempt: expired.attempt,
        to: release.to,
        reason: release.reason,
        by,
      });
      return flag(body, 'released', 'release_expired');
    },
    maintain: async () => count(await channel.request('maintain'), 'moved', 'the answer to maintain'),
  };
}

function compensation(channel: ChildChannel): CompensationOps {
  return {
    claim: async (coordinatorId) => claimOrNull(await channel.request('claim_compensation', { coordinator_id: coordinatorId }), 'claim_compensation'),
    finish: (claim, outcome, reason) => fencedWrite(channel, 'finish_compensation', claim, { outcome, reason }),
  };
}

/*
 * A person's requeue: the child commits the checkpoints with the move when it
 * keeps the saga's log. Beside the run, the checkpoints (the approval, the requeue) go to the
 * saga file first, under the job's epoch while it waits in review (nothing
 * moves it there but a person), then the child moves the job. A requeue that
 * finds the job gone from review leaves those rows as a record of the attempt.
 */
function human(channel: ChildChannel, appendAs: AppendAs): HumanOps {
  return {
    requeueFromReview: async (jobId, by, note, checkpoint) => {
      if (!appendAs) {
        const wire = { job_id: jobId, by, note, ...(checkpoint ? { checkpoint: txEntryWire(checkpoint) } : {}) };
        return flag(await channel.request('requeue_from_review', wire), 'requeued', 'requeue_from_review');
      }
      const body = await channel.request('snapshot', { history: false });
      const jobs = Array.isArray(body.jobs) ? body.jobs.map((j, i) => toJob(j, `snapshot.jobs[${i}]`)) : [];
      const job = jobs.find((j) => j.id === jobId);
      if (job?.status !== 'review') return false;
      const writer = { jobId, attempt: job.attempts, epoch: job.epoch, holder: `human:${by}` };
      if (checkpoint) await appendAs(writer, checkpoint);
      await appendAs(writer, { stepId: '(job)', action: 'requeue', key: job.key, status: 'success', detail: note });
      return flag(await channel.request('requeue_from_review', { job_id: jobId, by, note }), 'requeued', 'requeue_from_review');
    },
  };
}

/** The optional parts of the contract the child answers to (its hello's ops), each built on the channel. */
export function optionalParts(
  channel: ChildChannel,
  hello: ChildHello,
  appendAs: AppendAs,
  offers: (hello: ChildHello, part: OptionalPart) => boolean,
): Pick<QueueConnection, 'manual' | 'takeover' | 'compensation' | 'human'> {
  return {
    ...(offers(hello, 'manual') ? { manual: manual(channel) } : {}),
    ...(offers(hello, 'takeover') ? { takeover: takeover(channel, appendAs) } : {}),
    ...(offers(hello, 'compensation') ? { compensation: compensation(channel) } : {}),
    ...(offers(hello, 'human') ? { human: human(channel, appendAs) } : {}),
  };
}
