import { openReference } from '../reference/sqlite/open-reference.js';
import { sqliteAdapter } from '../reference/sqlite/sqlite-adapter.js';
import type { QueueUnderDrill } from '../saga/queue-under-drill.js';
import type { SqliteImpl } from '../variants/list.js';

/** A queue implementation `--queue` can name: its adapter, other names it answers to, and saga rules where they differ from the transaction sketch's. */
export interface QueueImpl extends QueueUnderDrill {
  aliases?: readonly string[];
  /** The reference queue's own design, on one store or another (what `queue-drill queues` calls reference). */
  reference?: true;
}

/** The reference queue on SQLite: the first of the SQLite queues (the broken variants follow it in the registry). */
export const SQLITE_REFERENCE: SqliteImpl = {
  name: 'reference',
  aliases: ['sqlite'],
  reference: true,
  soundness: 'sound',
  description: "the reference queue on one SQLite file: the queue sketch's design built right (leases that expire, fencing, review)",
  open: openReference,
};

/** A SQLite queue as `--queue` names it: the SQLite adapter over its spec, with its aliases, saga rules and reference mark. */
export function sqliteImpl(spec: SqliteImpl): QueueImpl {
  return {
    ...sqliteAdapter(spec),
    ...(spec.aliases ? { aliases: spec.aliases } : {}),
    ...(spec.sagaRules ? { sagaRules: spec.sagaRules } : {}),
    ...(spec.reference ? { reference: spec.reference } : {}),
  };
}
