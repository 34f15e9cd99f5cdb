import { utc } from '../../../kernel/clock.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import type { Db } from '../store.js';
import { type LeaseWriter, writeUnderLease } from './write-under-lease.js';

/** Renews a lease the worker still holds, saying until when; refused (and recorded) once it was lost. */
export function heartbeat(db: Db, lease: Lease, now: number, leaseMs: number, write: LeaseWriter = writeUnderLease): LeaseWriteResult {
  const leaseUntil = utc(now + leaseMs);
  const result = write(
    db,
    lease,
    utc(now),
    'worker',
    () => ({ to: 'running', set: 'lease_until = @leaseUntil', params: { leaseUntil }, reason: 'lease renewed' }),
    { to: 'running', what: 'heartbeat' },
  );
  return result.ok ? { ...result, leaseUntil } : result;
}
