import { describe, expect, it } from 'vitest';
import { HOLDER_DIES_REASON } from '../../../src/adapters/graphile-worker/fit.js';
import type { DrillDemands } from '../../../src/port/adapter.js';
import { QueueOptionError, resolveQueueOptions } from '../../../src/port/queue-options.js';
import { SEED_RETRY_DELAY } from '../../../src/port/retry-delay.js';
import { queueImpl } from '../../../src/queues/registry.js';

/*
 * How graphile-worker answers a drill's demands, without a server: the drills
 * it does not judge (a dead holder's lock freed only by its 4-hour sweep), the
 * options that change that, and the waits its fixed retry delays need.
 */

const adapter = queueImpl('graphile-worker');
const RELEASE = { release_dead_locks: true };

const DEMANDS: DrillDemands = {
  leaseMs: 300,
  skewMarginMs: 100,
  pollMs: 50,
  maxAttempts: [3],
  retryDelay: SEED_RETRY_DELAY,
  coordinator: true,
  approval: false,
  tools: [],
  points: [],
  holderDies: false,
  queueOptions: resolveQueueOptions('graphile-worker', adapter.options, {}),
  timeoutMs: 20_000,
};

const fit = (over: Partial<DrillDemands>, options: Record<string, string | boolean> = {}) =>
  adapter.fit?.({ ...DEMANDS, ...over, queueOptions: resolveQueueOptions('graphile-worker', adapter.options, options) }, {});

describe('graphile-worker: its options', () => {
  it("declares job_key_mode (graphile's default, replace) and release_dead_locks (off), and rejects what graphile does not take", () => {
    expect(resolveQueueOptions('graphile-worker', adapter.options, {})).toEqual({ job_key_mode: 'replace', release_dead_locks: false });
    expect(resolveQueueOptions('graphile-worker', adapter.options, { job_key_mode: 'unsafe_dedupe', release_dead_locks: 'true' })).toEqual({
      job_key_mode: 'unsafe_dedupe',
      release_dead_locks: true,
    });
    expect(() => resolveQueueOptions('graphile-worker', adapter.options, { job_key_mode: 'dedupe' })).toThrow(QueueOptionError);
    expect(() => resolveQueueOptions('graphile-worker', adapter.options, { job_key_mode: 'dedupe' })).toThrow(
      /job_key_mode=dedupe for graphile-worker: expected job_key_mode \(replace \| preserve_run_at \| unsafe_dedupe; default replace\)/,
    );
    expect(() => resolveQueueOptions('graphile-worker', adapter.options, { release_dead_locks: 'yes' })).toThrow(/true or false/);
    expect(() => resolveQueueOptions('graphile-worker', adapter.options, { lease: 1 })).toThrow(/not one graphile-worker accepts/);
    expect(adapter.options?.release_dead_locks?.describe).toMatch(/a piece a deployment may add.*forceUnlockWorkers/);
  });
});

describe('graphile-worker: fit', () => {
  it.each([
    ['with the coordinator', true],
    ['without the coordinator', false],
  ])("does not judge a drill whose fault stops a job's holder %s: graphile's own sweep takes 4 h (not unsupported)", async (_, coordinator) => {
    expect(await fit({ holderDies: true, coordinator })).toEqual({ ok: false, reason: HOLDER_DIES_REASON });
    expect(HOLDER_DIES_REASON).toMatch(/^not recovered within the drill: graphile-worker releases a dead worker's lock after 4 h \(/);
    expect(HOLDER_DIES_REASON).toMatch(/--queue-option release_dead_locks=true drills a deployment that frees it sooner$/);
  });

  it('does not run a drill that arms the heartbeat point, whatever frees a lock: graphile has no heartbeat, so it could never fire', async () => {
    for (const options of [{}, RELEASE]) {
      expect(await fit({ points: ['heartbeat'], holderDies: true }, options)).toEqual({
        ok: false,
        reason: expect.stringMatching(/^graphile-worker has no heartbeat .*the heartbeat fault point can never fire$/),
      });
    }
  });

  it("with release_dead_locks, runs it: the coordinator's forceUnlockWorkers after the lease, as the mapping says", async () => {
    const released = await fit({ holderDies: true }, RELEASE);
    expect(released).toMatchObject({
      ok: true,
      mapping: { 'lock release': expect.stringMatching(/^forceUnlockWorkers after lease_ms 300 \+ skew 100 ms, by the drill's coordinator/) },
    });
    // The piece is the coordinator's: a drill without one cannot drill it.
    expect(await fit({ holderDies: true, coordinator: false }, RELEASE)).toEqual({
      ok: false,
      reason: expect.stringMatching(/release_dead_locks=true.*coordinator.*without one/),
    });
  });

  it('runs a drill in which no holder dies, with or without the coordinator; nothing but graphile unlocks a job', async () => {
    for (const coordinator of [true, false]) {
      expect(await fit({ coordinator })).toMatchObject({
        ok: true,
        mapping: {
          pollInterval: 50,
          maxAttempts: '3',
          jobKey: expect.stringMatching(/^the idempotency key, jobKeyMode replace: graphile's default/),
          'lock release': expect.stringMatching(/graphile's own only.*4 h old; nothing else unlocks a job/),
        },
      });
    }
    expect(await fit({}, { job_key_mode: 'unsafe_dedupe' })).toMatchObject({
      mapping: { jobKey: expect.stringContaining('jobKeyMode unsafe_dedupe') },
    });
  });

  it("raises the watchdog above graphile's longest retry delay and the deadline by the sum of them: exp(least(attempts, 10)) s", async () => {
    const why = "graphile-worker's retry delay is exp(least(attempts, 10)) s, fixed in its SQL";
    // Budget 3: waits of e^1 and e^2 s (2 719 and 7 390 ms, rounded up), plus a 3 s margin on the watchdog.
    expect(await fit({})).toMatchObject({ ok: true, atLeast: { noProgressMs: 7_390 + 3_000, timeoutMs: 20_000 + 2_719 + 7_390, why } });
    // The largest budget of the drill counts: 4 attempts wait e^3 s (20 086 ms) at most.
    expect(await fit({ maxAttempts: [2, 4], timeoutMs: 5_000 })).toMatchObject({
      atLeast: { noProgressMs: 20_086 + 3_000, timeoutMs: 5_000 + 2_719 + 7_390 + 20_086 },
    });
    // No retry, no wait.
    expect(await fit({ maxAttempts: [1] })).not.toHaveProperty('atLeast');
  });

  it("refuses an attempt budget beyond graphile's smallint", async () => {
    expect(await fit({ maxAttempts: [40_000] })).toEqual({ ok: false, reason: expect.stringContaining('smallint') });
  });
});
