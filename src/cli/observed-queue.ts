import { connectQueue, queueImpl } from '../adapters/registry.js';
import { systemClock } from '../kernel/clock.js';
import { seededRandom } from '../kernel/random.js';
import type { QueueConnection } from '../port/adapter.js';
import { type ServerFlags, serversFromFlags } from '../port/servers.js';
import { existingFile } from './paths.js';

/** Connects the observe commands (status, history, approve, enqueue) to `--queue` at `--store`; a store file must exist (opening would make an empty one). */
export async function observedQueue(
  args: { queue: string; store: string } & ServerFlags,
  options: { mustExist?: boolean } = {},
): Promise<QueueConnection> {
  const impl = queueImpl(args.queue);
  if (impl.locatorKind === 'file' && options.mustExist !== false) existingFile(args.store, '--store');
  return connectQueue(impl, args.store, { clock: systemClock(), random: seededRandom(1), servers: serversFromFlags(args) });
}
