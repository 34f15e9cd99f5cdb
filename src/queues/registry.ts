import { bullmqAdapter } from '../adapters/bullmq/bullmq-adapter.js';
import { graphileAdapter } from '../adapters/graphile-worker/graphile-adapter.js';
import { natsJetstreamAdapter } from '../adapters/nats-jetstream/nats-jetstream-adapter.js';
import { pgBossAdapter } from '../adapters/pg-boss/pg-boss-adapter.js';
import { PROCESS_PREFIX, processAdapter } from '../adapters/process/process-adapter.js';
import { rabbitmqAdapter } from '../adapters/rabbitmq/rabbitmq-adapter.js';
import { InputError } from '../kernel/errors.js';
import type { QueueOptions, SqliteQueue } from '../reference/sqlite/sqlite-queue.js';
import { BROKEN_SERVER_VARIANTS, BROKEN_VARIANTS, type SqliteImpl } from '../variants/list.js';
import { ADAPTER_PREFIX, canonicalQueueName, importAdapterModule } from './adapter-module.js';
import { POSTGRES_REFERENCE } from './postgres-impl.js';
import { type QueueImpl, SQLITE_REFERENCE, sqliteImpl } from './sqlite-impl.js';

export type { QueueImpl } from './sqlite-impl.js';

/** The SQLite queues: the reference, then the broken variants (src/variants/list.ts). */
const SQLITE_QUEUES: readonly SqliteImpl[] = [SQLITE_REFERENCE, ...BROKEN_VARIANTS];

/** Every implementation `--queue` can name: the sound ones first, then the broken variants the self-test must catch. */
export const QUEUE_IMPLS: readonly QueueImpl[] = [
  sqliteImpl(SQLITE_QUEUES[0]!),
  POSTGRES_REFERENCE,
  bullmqAdapter,
  pgBossAdapter,
  graphileAdapter,
  rabbitmqAdapter,
  natsJetstreamAdapter,
  ...SQLITE_QUEUES.slice(1).map(sqliteImpl),
  ...BROKEN_SERVER_VARIANTS,
];

/** Thrown for a `--queue` name that is not known; lists the ones that are. */
export class UnknownQueueError extends InputError {
  readonly code = 'QD_UNKNOWN_QUEUE';
  constructor(name: string) {
    super(
      `unknown queue implementation ${JSON.stringify(name)}; known: ${QUEUE_IMPLS.map((q) => q.name).join(', ')}, process:CMD ARGS ` +
        'or adapter:PATH (an adapter module) ' +
        '(queue-drill queues says what each is)',
    );
  }
}

const processImpls = new Map<string, QueueImpl>();
const adapterModules = new Map<string, QueueImpl>();

/** An `adapter:PATH` looked up before its module was loaded (loadQueue): a caller's bug, named. */
export class AdapterNotLoadedError extends InputError {
  readonly code = 'QD_ADAPTER_NOT_LOADED';
  constructor(name: string) {
    super(`${name}: an adapter module is loaded before it is used (loadQueue); it was not`);
  }
}

/**
 * The implementation called `name`, loading it first where that takes an
 * import (`adapter:PATH`, a user's own adapter module): what every entry point
 * calls once for each queue it is given, after which queueImpl finds it too.
 */
export async function loadQueue(name: string): Promise<QueueImpl> {
  if (!name.startsWith(ADAPTER_PREFIX)) return queueImpl(name);
  const canonical = canonicalQueueName(name);
  const loaded = adapterModules.get(canonical) ?? (await importAdapterModule(canonical));
  adapterModules.set(canonical, loaded);
  return loaded;
}

/**
 * The implementation called `name` (or one of its aliases); `process:CMD ARGS` is a queue in a child process
 * speaking the process protocol; `adapter:PATH` a user's adapter module, once loadQueue has loaded it.
 */
export function queueImpl(name: string): QueueImpl {
  if (name.startsWith(ADAPTER_PREFIX)) {
    const loaded = adapterModules.get(canonicalQueueName(name));
    if (!loaded) throw new AdapterNotLoadedError(name);
    return loaded;
  }
  if (name.startsWith(PROCESS_PREFIX)) {
    const made = processImpls.get(name) ?? processAdapter(name.slice(PROCESS_PREFIX.length));
    processImpls.set(name, made);
    return made;
  }
  const impl = QUEUE_IMPLS.find((q) => q.name === name || q.aliases?.includes(name));
  if (!impl) throw new UnknownQueueError(name);
  return impl;
}

/** Opens the SQLite queue called `name` on a store file, in this process: for tests and the demo, which drive its methods directly. */
export function openSqliteQueue(name: string, file: string, options: QueueOptions): SqliteQueue {
  const spec = SQLITE_QUEUES.find((q) => q.name === name || q.aliases?.includes(name));
  if (!spec) throw new UnknownQueueError(name);
  return spec.open(file, options);
}
