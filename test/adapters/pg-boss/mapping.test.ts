import { describe, expect, it } from 'vitest';
import { fitPgBoss } from '../../../src/adapters/pg-boss/fit.js';
import { jobIdForKey } from '../../../src/adapters/pg-boss/job-id.js';
import { expireInSecondsFor, pgBossRetryPolicy, retryDelaySecondsFor } from '../../../src/adapters/pg-boss/mapping.js';
import { statusOf } from '../../../src/adapters/pg-boss/states.js';
import type { DrillDemands } from '../../../src/port/adapter.js';
import { drillDemands } from '../../helpers/drill-demands.js';

const DEMANDS: DrillDemands = drillDemands({
  leaseMs: 1_200,
  pollMs: 100,
  maxAttempts: [3, 1],
  retryDelay: { baseMs: 300, capMs: 1_000, jitterMs: 200 },
});

describe('pg-boss: how a drill maps onto its options', () => {
  it.each([
    [1_000, 1],
    [1_001, 2],
    [1_200, 2],
    [4_000, 4],
  ])('a lease of %i ms is expireInSeconds %i (rounded up: never shorter than asked)', (leaseMs, seconds) => {
    expect(expireInSecondsFor(leaseMs)).toBe(seconds);
  });

  it("leaves a handler room to wait out a call timeout: pg-boss's expireIn is a deadline it never renews", () => {
    // The shipped scenarios at ×2.5: a 1 s lease and a 750 ms call timeout, then a reconcile and a settle.
    expect(expireInSecondsFor(1_000, 750)).toBe(2);
    const fit = fitPgBoss({ ...DEMANDS, leaseMs: 1_000, callTimeoutMs: 750 });
    expect(fit.ok && fit.mapping).toMatchObject({
      expireInSeconds: 2,
      'expireInSeconds.rounding': 'lease 1000 ms and a call timeout of 750 ms, rounded up to whole seconds',
    });
  });

  it('refuses a lease below pg-boss 10 minimum of 1 s, saying which time scale would run it', () => {
    const fit = fitPgBoss({ ...DEMANDS, leaseMs: 400 });
    expect(fit).toEqual({ ok: false, reason: expect.stringMatching(/lease 400 ms is below pg-boss 10's minimum .* --time-scale 3/) });
  });

  it('refuses a drill that arms the heartbeat point, which pg-boss 10 never reaches', () => {
    const fit = fitPgBoss({ ...DEMANDS, points: ['after_claim', 'heartbeat'] });
    expect(fit).toEqual({ ok: false, reason: expect.stringMatching(/no heartbeat/) });
  });

  it('writes the options it set into the mapping: lease, retry budget per max_attempts, a fixed retry delay, polling, maintenance', () => {
    const fit = fitPgBoss(DEMANDS);
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    expect(fit.mapping).toMatchObject({
      expireInSeconds: 2,
      retryLimit: '0 (max_attempts 1), 2 (max_attempts 3)',
      retryDelay: 1,
      retryBackoff: false,
      pollingIntervalSeconds: 0.5,
      maintenanceIntervalSeconds: 1,
    });
  });

  it('declares the retry delays pg-boss really applies: fixed whole seconds, at least 1, no cap beyond it, no jitter', () => {
    expect(retryDelaySecondsFor({ baseMs: 300, capMs: 1_000, jitterMs: 200 })).toBe(1);
    expect(pgBossRetryPolicy({ baseMs: 1_500, capMs: 60_000, jitterMs: 10_000 })).toEqual({ baseMs: 2_000, capMs: 2_000, jitterMs: 0 });
  });

  it('derives one UUID per idempotency key, the same in every process', () => {
    const id = jobIdForKey('order-42');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(jobIdForKey('order-42')).toBe(id);
    expect(jobIdForKey('order-43')).not.toBe(id);
  });

  it.each([
    ['created', null, 'pending'],
    ['retry', null, 'retry'],
    // A person's boss.retry() of a failed job leaves completed_on set: requeued from review, pending.
    ['retry', '2026-01-01T00:00:00Z', 'pending'],
    ['active', null, 'running'],
    ['completed', '2026-01-01T00:00:00Z', 'done'],
    ['failed', '2026-01-01T00:00:00Z', 'review'],
  ] as const)('reads pg-boss state %s (completed_on %s) as %s', (state, completedOn, status) => {
    expect(statusOf(state, completedOn)).toBe(status);
  });
});
