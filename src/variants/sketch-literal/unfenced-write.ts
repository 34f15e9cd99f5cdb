import { guardedLeaseWriter, type LeaseWriter } from '../../reference/sqlite/sql/write-under-lease.js';

/**
 * The queue sketch's final UPDATEs, as written: guarded by `leased_by` alone (no
 * fence, no status), and a refused update (0 rows: the lease was lost) passes
 * silently: the caller is told it worked and nothing is recorded.
 */
export const unfencedWrite: LeaseWriter = guardedLeaseWriter('id = @jobId AND leased_by = @workerId', () => ({ ok: true, status: 'running' }));
