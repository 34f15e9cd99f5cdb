import { describe, expect, it } from 'vitest';
import { exclusiveDurations, percentile, union } from '../../src/bench/stats.js';

describe('percentile (nearest rank)', () => {
  it.each([
    [[5], 50, 5],
    [[1, 2, 3, 4], 50, 2],
    [[4, 3, 2, 1], 99, 4],
    [Array.from({ length: 100 }, (_, i) => i + 1), 99, 99],
    [Array.from({ length: 100 }, (_, i) => i + 1), 50, 50],
  ])('of %j at %i is %i', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  it('is null for no values', () => {
    expect(percentile([], 50)).toBeNull();
  });
});

describe('exclusiveDurations: a window split among categories that do not overlap, in order of precedence', () => {
  const window = { start: 0, end: 100 };

  it('counts the time a category shares with an earlier one only for the earlier, and leaves the rest', () => {
    const { byCategory, rest } = exclusiveDurations(window, [
      ['startup', [{ start: 0, end: 30 }]],
      [
        'waits',
        [
          { start: 20, end: 50 },
          { start: 40, end: 60 },
        ],
      ],
      ['check', [{ start: 90, end: 120 }]],
    ] as const);
    expect(byCategory).toEqual({ startup: 30, waits: 30, check: 10 });
    expect(rest).toBe(30);
  });

  it('ignores spans outside the window and empty ones', () => {
    const { byCategory, rest } = exclusiveDurations(window, [
      [
        'a',
        [
          { start: -20, end: -10 },
          { start: 50, end: 50 },
        ],
      ],
    ] as const);
    expect(byCategory).toEqual({ a: 0 });
    expect(rest).toBe(100);
  });

  it('merges overlapping spans', () => {
    expect(
      union([
        { start: 5, end: 10 },
        { start: 0, end: 6 },
        { start: 20, end: 30 },
      ]),
    ).toEqual([
      { start: 0, end: 10 },
      { start: 20, end: 30 },
    ]);
  });
});
