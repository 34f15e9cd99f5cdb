import { join } from 'node:path';
import { systemClock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import { toolVersion } from '../../kernel/version.js';
import type { QueueAdapter } from '../../port/adapter.js';
import { referenceCapabilities } from '../reference-capabilities.js';
import { referenceConnection } from '../reference-connection.js';
import { SqliteLeaseStore } from './sqlite-lease-store.js';
import type { QueueOptions, SqliteQueue } from './sqlite-queue.js';

/** A SQLite queue of the reference design (the reference itself or a broken variant), and how to open it on a store file. */
export interface SqliteQueueSpec {
  name: string;
  description: string;
  soundness: QueueAdapter['soundness'];
  breaks?: QueueAdapter['breaks'];
  open(file: string, options: QueueOptions): SqliteQueue;
}

/**
 * A SQLite queue as an adapter: each drill's queue is a file in its run
 * directory (made, schema and all, before any process starts, so none races
 * on it), and every process opens its own connection to it.
 */
export function sqliteAdapter(spec: SqliteQueueSpec): QueueAdapter {
  return {
    name: spec.name,
    description: spec.description,
    version: `queue-drill ${toolVersion()} (SQLite)`,
    capabilities: referenceCapabilities('caller'),
    soundness: spec.soundness,
    ...(spec.breaks ? { breaks: spec.breaks } : {}),
    locatorKind: 'file',
    async provision(request) {
      const file = join(request.runDir, 'queue.db');
      spec.open(file, { clock: systemClock(), random: seededRandom(0) }).close();
      return { locator: file, env: {}, where: file, teardown: async () => undefined };
    },
    async connect(locator, options) {
      const queue = spec.open(locator, options);
      return referenceConnection(new SqliteLeaseStore(queue), { leaseMs: options.leaseMs });
    },
  };
}
