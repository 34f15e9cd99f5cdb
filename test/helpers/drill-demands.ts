import type { DrillDemands } from '../../src/port/adapter.js';

/** What a plain drill asks of a queue (a 400 ms lease, three attempts, a coordinator, one crash point), with `overrides`. */
export function drillDemands(overrides: Partial<DrillDemands> = {}): DrillDemands {
  return {
    leaseMs: 400,
    skewMarginMs: 50,
    pollMs: 25,
    maxAttempts: [3],
    retryDelay: { baseMs: 100, capMs: 800, jitterMs: 50 },
    coordinator: true,
    approval: false,
    tools: ['write_file'],
    points: ['after_claim'],
    holderDies: false,
    queueOptions: {},
    timeoutMs: 20_000,
    ...overrides,
  };
}
