import type { QueueOptions, SqliteQueue } from '../queue/sqlite-queue.js';
import { SqliteQueue as ReferenceQueue } from '../queue/sqlite-queue.js';
import { openStore } from '../queue/store.js';
import type { SagaRules } from '../saga/rules.js';
import { SeedLiteralQueue } from './seed-literal/seed-literal-queue.js';

/** A queue implementation the drills can run: a name, what it is, and how to open it on a store file. */
export interface QueueImpl {
  name: string;
  description: string;
  open(file: string, options: QueueOptions): SqliteQueue;
  /** The saga runtime's decisions where they differ from the reference (seed 003). */
  sagaRules?: SagaRules;
}

/** Every implementation `--queue` can name. */
export const QUEUE_IMPLS: readonly QueueImpl[] = [
  {
    name: 'reference',
    description: "the reference queue: seed 000's design built right (leases that expire, fencing, review)",
    open: (file, options) => new ReferenceQueue(openStore(file), options),
  },
  {
    name: 'seed-literal',
    description: "seed 000's queue as written: claim never takes running jobs back; refused writes pass silently",
    open: (file, options) => new SeedLiteralQueue(openStore(file), options),
  },
];

/** Thrown for a `--queue` name that is not known; lists the ones that are. */
export class UnknownQueueError extends Error {
  readonly code = 'QD_UNKNOWN_QUEUE';
  constructor(name: string) {
    super(`unknown queue implementation ${JSON.stringify(name)}; known: ${QUEUE_IMPLS.map((q) => q.name).join(', ')}`);
  }
}

/** The implementation called `name`. */
export function queueImpl(name: string): QueueImpl {
  const impl = QUEUE_IMPLS.find((q) => q.name === name);
  if (!impl) throw new UnknownQueueError(name);
  return impl;
}
