import type { JobRow, LeaseWriteResult } from '../../queue/job.js';
import { appendEvent } from '../../queue/sql/append-event.js';
import type { LeaseWriter } from '../../queue/sql/write-under-lease.js';
import type { JobStatus } from '../../queue/states.js';
import { statement } from '../../queue/store.js';

const ROW = `SELECT * FROM agent_jobs WHERE id = @jobId`;

/**
 * A lease holder's write guarded by the job's id only: no worker, no fence, no
 * status. Whoever once held the job can still complete it, retry it, send it to
 * review, or renew a lease on it: a zombie worker's late write is applied over
 * the job's new holder, and its heartbeat keeps a lease alive on a job that is
 * no longer its own (or already done). The history still records each status
 * change the write made, under the writer's old fence; the store's transition
 * trigger still refuses a change the state machine forbids (retry to done),
 * which the writer sees as an error, not as a lost lease.
 */
export const unguardedWrite: LeaseWriter = (db, lease, at, actor, plan) =>
  db
    .transaction((): LeaseWriteResult => {
      const held = statement(db, ROW).get(lease) as JobRow | undefined;
      if (!held) return { ok: false, code: 'QD_LEASE_LOST', current: null };
      const write = plan(held);
      const after = statement(db, `UPDATE agent_jobs SET ${write.set}, updated_at = @at WHERE id = @jobId RETURNING status`).get({
        ...write.params,
        ...lease,
        at,
      }) as { status: JobStatus };
      if (after.status !== held.status) {
        appendEvent(db, {
          jobId: lease.jobId,
          kind: 'transition',
          from: held.status,
          to: after.status,
          attempt: held.attempts,
          fence: lease.fence,
          worker: lease.workerId,
          actor,
          reason: write.reason,
          at,
        });
      }
      return { ok: true, status: after.status };
    })
    .immediate();
