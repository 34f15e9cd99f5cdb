import { UsageError } from '../kernel/errors.js';

/** `--adapter PATH`: a user's own adapter module, the same as `--queue adapter:PATH`. */
export const ADAPTER_FLAG = {
  type: 'string',
  describe: 'your own queue adapter: an ES module whose default export is a QueueAdapter (queue-drill/adapter), the same as --queue adapter:PATH',
} as const;

/**
 * The queue `--queue` or `--adapter` names (not both), loaded (an adapter
 * module is imported here, once), as every process of the drill is given it:
 * undefined when neither is given.
 */
export async function queueFromFlags(args: { queue?: string | undefined; adapter?: string | undefined }): Promise<string | undefined> {
  if (args.queue !== undefined && args.adapter !== undefined)
    throw new UsageError(`--queue ${args.queue} and --adapter ${args.adapter}: give one (--adapter PATH is --queue adapter:PATH)`);
  const name = args.adapter !== undefined ? `adapter:${args.adapter}` : args.queue;
  if (name === undefined) return undefined;
  const { loadQueue } = await import('../queues/registry.js');
  const { canonicalQueueName } = await import('../queues/adapter-module.js');
  await loadQueue(name);
  return canonicalQueueName(name);
}

/** Each of a comma-separated list of queues (`--queues`), loaded, as every process of the drill is given it. */
export async function queuesFromFlag(names: readonly string[]): Promise<string[]> {
  const { loadQueue } = await import('../queues/registry.js');
  const { canonicalQueueName } = await import('../queues/adapter-module.js');
  for (const name of names) await loadQueue(name);
  return names.map(canonicalQueueName);
}
