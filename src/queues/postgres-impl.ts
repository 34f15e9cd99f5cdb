import { postgresAdapter } from '../reference/postgres/postgres-adapter.js';
import type { QueueImpl } from './sqlite-impl.js';

/** The reference queue's design on PostgreSQL, as `--queue postgres` names it. */
export const POSTGRES_REFERENCE: QueueImpl = { ...postgresAdapter, reference: true };
