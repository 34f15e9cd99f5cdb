import type { JobRow, LeaseWriteResult } from '../../queue/job.js';
import { appendEvent } from '../../queue/sql/append-event.js';
import type { LeaseWriter } from '../../queue/sql/write-under-lease.js';
import { statement } from '../../queue/store.js';

/**
 * Seed 000's final UPDATEs, as written: guarded by `leased_by` alone (no
 * fence, no status), and a refused update (0 rows: the lease was lost) passes
 * silently: the caller is told it worked and nothing is recorded.
 */
export const unfencedWrite: LeaseWriter = (db, lease, at, actor, plan) =>
  db
    .transaction((): LeaseWriteResult => {
      const held = statement(db, 'SELECT * FROM agent_jobs WHERE id = @jobId AND leased_by = @workerId').get(lease) as JobRow | undefined;
      if (!held) return { ok: true, status: 'running' };
      const write = plan(held);
      statement(db, `UPDATE agent_jobs SET ${write.set}, updated_at = @at WHERE id = @jobId AND leased_by = @workerId`).run({
        ...write.params,
        ...lease,
        at,
      });
      if (write.to !== held.status) {
        appendEvent(db, {
          jobId: lease.jobId,
          kind: 'transition',
          from: held.status,
          to: write.to,
          attempt: held.attempts,
          fence: lease.fence,
          worker: lease.workerId,
          actor,
          reason: write.reason,
          at,
        });
      }
      return { ok: true, status: write.to };
    })
    .immediate();
