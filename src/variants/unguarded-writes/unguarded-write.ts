import { guardedLeaseWriter, type LeaseWriter } from '../../reference/sqlite/sql/write-under-lease.js';

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
export const unguardedWrite: LeaseWriter = guardedLeaseWriter('id = @jobId', () => ({ ok: false, code: 'QD_LEASE_LOST', current: null }));
