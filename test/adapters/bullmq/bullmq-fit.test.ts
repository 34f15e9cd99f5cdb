import { describe, expect, it } from 'vitest';
import { bullmqAdapter } from '../../../src/adapters/bullmq/bullmq-adapter.js';
import { fitBullmq } from '../../../src/adapters/bullmq/fit.js';
import type { DrillDemands } from '../../../src/port/adapter.js';

const DEMANDS: DrillDemands = {
  leaseMs: 400,
  skewMarginMs: 50,
  pollMs: 10,
  maxAttempts: [3, 3, 1],
  retryDelay: { baseMs: 20, capMs: 200, jitterMs: 10 },
  coordinator: false,
  approval: false,
  tools: [],
  points: ['after_claim'],
  holderDies: false,
  queueOptions: {},
  timeoutMs: 20_000,
};

/** What BullMQ's options are set to from a drill's demands, and what it refuses. */
describe('bullmq: fit', () => {
  it('maps the lease onto lockDuration and the stalled checker, attempts per job, the drill backoff, and keeps finished jobs', () => {
    const fit = fitBullmq(DEMANDS);
    expect(fit).toMatchObject({
      ok: true,
      mapping: {
        lockDuration: 400,
        lockRenewTime: 200,
        stalledInterval: 100,
        maxStalledCount: 1,
        attempts: 'per job (3, 1)',
        removeOnComplete: false,
        removeOnFail: false,
        drainDelaySeconds: 1,
      },
    });
  });

  it('refuses a lease below what its lock renewal can keep, saying why', () => {
    expect(fitBullmq({ ...DEMANDS, leaseMs: 100 })).toEqual({
      ok: false,
      reason: 'BullMQ cannot hold a lease of 100 ms: its lock renewal needs lockDuration >= 200 ms',
    });
  });

  it('names the installed BullMQ', () => {
    expect(bullmqAdapter.version).toBe('bullmq 5.81.3');
  });
});
