import { describe, expect, it } from 'vitest';
import { type Random, seededRandom } from '../../src/kernel/random.js';
import { type RetryDelayPolicy, retryDelayMs, SEED_RETRY_DELAY } from '../../src/port/retry-delay.js';

const NO_JITTER: RetryDelayPolicy = { ...SEED_RETRY_DELAY, jitterMs: 0 };

/** A random source that always returns the same number. */
function fixed(value: number): Random {
  return { next: () => value };
}

describe('retryDelayMs', () => {
  it("keeps the queue sketch's schedule as the default", () => {
    expect(SEED_RETRY_DELAY).toEqual({ baseMs: 15_000, capMs: 900_000, jitterMs: 10_000 });
  });

  it.each([
    { attempt: 0, expected: 15_000 },
    { attempt: 1, expected: 15_000 },
    { attempt: 2, expected: 30_000 },
    { attempt: 3, expected: 60_000 },
    { attempt: 4, expected: 120_000 },
    { attempt: 5, expected: 240_000 },
    { attempt: 6, expected: 480_000 },
    { attempt: 7, expected: 900_000 }, // 960 000 capped
    { attempt: 8, expected: 900_000 },
    { attempt: 100, expected: 900_000 },
    { attempt: 5_000, expected: 900_000 }, // 2 ** 4999 is Infinity: still the cap
  ])('after attempt $attempt without jitter waits $expected ms', ({ attempt, expected }) => {
    expect(retryDelayMs(attempt, NO_JITTER, seededRandom(1))).toBe(expected);
  });

  it('doubles from any base up to any cap', () => {
    const policy = { baseMs: 100, capMs: 1_000, jitterMs: 0 };
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, policy, seededRandom(1)));
    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it.each([
    { name: 'the lowest draw adds nothing', draw: 0, jitter: 0 },
    { name: 'the highest draw adds all of jitterMs', draw: 0.999_999_999, jitter: 10_000 },
    { name: 'a middle draw adds half', draw: 0.5, jitter: 5_000 },
  ])('jitter: $name', ({ draw, jitter }) => {
    expect(retryDelayMs(2, SEED_RETRY_DELAY, fixed(draw))).toBe(30_000 + jitter);
  });

  it('adds a whole number of ms within [0, jitterMs] from a seeded random', () => {
    const random = seededRandom(2026);
    const jitters = new Set<number>();
    for (let i = 0; i < 2_000; i++) {
      const attempt = 1 + (i % 9);
      const exponential = retryDelayMs(attempt, NO_JITTER, random);
      const jitter = retryDelayMs(attempt, SEED_RETRY_DELAY, random) - exponential;
      expect(Number.isInteger(jitter)).toBe(true);
      expect(jitter).toBeGreaterThanOrEqual(0);
      expect(jitter).toBeLessThanOrEqual(SEED_RETRY_DELAY.jitterMs);
      jitters.add(jitter);
    }
    // Jitter that is really random, not a constant inside the bounds.
    expect(jitters.size).toBeGreaterThan(1_000);
  });

  it('gives the same delays for the same seed, and other delays for another seed', () => {
    const run = (seed: number): number[] => {
      const random = seededRandom(seed);
      return Array.from({ length: 20 }, (_, i) => retryDelayMs(1 + (i % 6), SEED_RETRY_DELAY, random));
    };
    expect(run(42)).toEqual(run(42));
    expect(run(43)).not.toEqual(run(42));
  });
});
