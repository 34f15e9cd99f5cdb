import { systemClock } from '../kernel/clock.js';
import { UsageError } from '../kernel/errors.js';
import { seededRandom } from '../kernel/random.js';
import type { QueueConnection } from '../port/adapter.js';
import { connectQueue } from '../port/connect-queue.js';
import type { QueueAddress } from '../port/queue-address.js';
import { type ServerFlags, serversFromFlags } from '../port/servers.js';
import { loadQueue, queueImpl } from '../queues/registry.js';
import { existingFile } from './paths.js';

/** Connects the observe commands (status, history, approve, enqueue) to `--queue` at `--store`; a store file must exist (opening would make an empty one). */
export async function observedQueue(
  args: { queue: string; store: string } & ServerFlags,
  options: { mustExist?: boolean } = {},
): Promise<QueueConnection> {
  const impl = await loadQueue(args.queue);
  if (impl.locatorKind === 'file' && options.mustExist !== false) existingFile(args.store, '--store');
  try {
    return await connectQueue(impl, args.store, { clock: systemClock(), random: seededRandom(1), servers: serversFromFlags(args) });
  } catch (error) {
    // A file that is not a queue's store (a README, a corrupt or foreign database) is the user's input, not the harness failing.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_A_STORE.has(code))
      throw new UsageError(`--store ${args.store}: not a ${impl.name} queue store (${(error as Error).message})`, { cause: error });
    throw error;
  }
}

/** Where the observe commands' queue is, as the commands they print for a person name it. */
export function queueAddress(args: { queue: string; store: string } & ServerFlags): QueueAddress {
  return { queue: args.queue, store: args.store, storeKind: queueImpl(args.queue).locatorKind, servers: serversFromFlags(args) };
}

/** The SQLite errors that say a file is not a database this queue can open. */
const NOT_A_STORE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT', 'SQLITE_CANTOPEN']);
