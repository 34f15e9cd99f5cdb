import { DEFAULT_LEASE_MS, DEFAULT_SKEW_MARGIN_MS } from '../kernel/defaults.js';
import type { ConnectOptions, QueueAdapter, QueueConnection, RetryDelayPolicy } from './adapter.js';
import { SEED_RETRY_DELAY } from './retry-delay.js';

/** Connects to a queue with the reference's lease settings where the caller has none of its own (a producer, an observer). */
export function connectQueue(
  impl: QueueAdapter,
  locator: string,
  options: Pick<ConnectOptions, 'clock' | 'random'> & Partial<ConnectOptions>,
): Promise<QueueConnection> {
  return impl.connect(locator, { leaseMs: DEFAULT_LEASE_MS, skewMarginMs: DEFAULT_SKEW_MARGIN_MS, retryDelay: SEED_RETRY_DELAY, ...options });
}

/** The retry delays a queue applies when a drill asks for `requested`: its own declaration, else exactly what was asked. */
export function retryPolicyOf(impl: QueueAdapter, requested: RetryDelayPolicy): RetryDelayPolicy {
  return impl.retryPolicyFor?.(requested) ?? requested;
}
