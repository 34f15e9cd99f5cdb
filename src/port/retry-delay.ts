import { type Random, randomInt } from '../kernel/random.js';
import type { RetryDelayPolicy } from './adapter.js';

export type { RetryDelayPolicy } from './adapter.js';

/** The queue sketch's schedule: 15 s doubling to a 15 min cap, plus 0 to 10 s of jitter. */
export const SEED_RETRY_DELAY = { baseMs: 15_000, capMs: 900_000, jitterMs: 10_000 } satisfies RetryDelayPolicy;

/** The delay before attempt `attempt + 1`, with jitter from the injected random source. */
export function retryDelayMs(attempt: number, policy: RetryDelayPolicy, random: Random): number {
  const exponential = Math.min(policy.baseMs * 2 ** Math.max(attempt - 1, 0), policy.capMs);
  return exponential + randomInt(random, 0, policy.jitterMs);
}
