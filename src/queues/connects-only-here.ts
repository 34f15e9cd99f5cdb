import { PROCESS_PREFIX } from '../adapters/process/process-adapter.js';
import { isOnThisMachine } from '../kernel/this-machine.js';
import type { QueueAdapter, ServerSettings } from '../port/adapter.js';
import { ADAPTER_PREFIX } from './adapter-module.js';

/**
 * Whether every connection a drill's processes make on `impl` stays on this
 * machine: a queue queue-drill ships whose every server is on a loopback
 * address (one not given is its default on 127.0.0.1). A user's own queue (a
 * process, an adapter module) connects wherever its code says.
 */
export function connectsOnlyHere(impl: QueueAdapter, servers: ServerSettings): boolean {
  if (!isShippedQueue(impl)) return false;
  return (impl.needs ?? []).every((need) => {
    const url = servers[need];
    return url === undefined || isOnThisMachine(url);
  });
}

/** Whether `impl` is a queue queue-drill ships (its code the drill's own), not a user's process or adapter module. */
export function isShippedQueue(impl: QueueAdapter): boolean {
  return !impl.name.startsWith(ADAPTER_PREFIX) && !impl.name.startsWith(PROCESS_PREFIX);
}
