import { millis, type Queryable } from '../../../adapters/pg/queryable.js';
import type { Lease, LeaseWriteResult } from '../../job.js';
import { writeUnderLease } from './write-under-lease.js';

/** Renews a lease its holder still holds by `leaseMs` from now (the server's now); refused, and recorded, once it was lost. Run in a transaction. */
export async function heartbeat(db: Queryable, lease: Lease, leaseMs: number, leaseGuard?: string): Promise<LeaseWriteResult> {
  return writeUnderLease(
    db,
    lease,
    'worker',
    () => ({ to: 'running', set: `lease_until = clock.now + ${millis('@leaseMs')}`, params: { leaseMs }, reason: 'lease renewed' }),
    { to: 'running', what: 'heartbeat' },
    leaseGuard,
  );
}
