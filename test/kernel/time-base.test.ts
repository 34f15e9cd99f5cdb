import { describe, expect, it } from 'vitest';
import { HARNESS_CLOCK, STAMPS_AS_WRITTEN, skewShown, timeBase, writerOf } from '../../src/kernel/time-base.js';

const AT = '2026-08-25T10:00:00.000Z';
const MS = Date.parse(AT);

describe('timeBase', () => {
  const offsets = [{ process: 'w1', lowMs: -92, highMs: -88, samples: 4 }];

  it("places a stamp of a caller's clock by its measured bound: no earlier than stamp − high, no later than stamp − low", () => {
    const base = timeBase('caller', offsets);
    expect(base.queue(AT, 'w1')).toEqual({ earliest: MS + 88, latest: MS + 92 });
    expect(base.own(MS, 'w1')).toEqual({ earliest: MS + 88, latest: MS + 92 });
    expect(base.correction('w1')).toBe("w1's clock −90 ms");
  });

  it('moves no shown stamp of a clock whose bound holds 0 (no skew measured), though the judge still places it by its bound', () => {
    const loose = { process: 'w2', lowMs: -2, highMs: 10, samples: 2 };
    const base = timeBase('caller', [...offsets, loose]);
    expect(base.correction('w2')).toBeNull();
    expect(base.queue(AT, 'w2')).toEqual({ earliest: MS - 10, latest: MS + 2 });
    expect(skewShown(loose)).toBeNull();
    expect(skewShown(offsets[0]!)).toBe('w1 −90 ms (±2)');
  });

  it("places the harness's own stamps as they are, and nothing of a clock never measured (or a stamp that is no time)", () => {
    const base = timeBase('caller', offsets);
    expect(base.queue(AT, HARNESS_CLOCK)).toEqual({ earliest: MS, latest: MS });
    expect(base.correction(HARNESS_CLOCK)).toBeNull();
    expect(base.queue(AT, 'w2')).toBeUndefined();
    expect(base.queue(AT, null)).toBeUndefined();
    expect(base.queue('not a time', 'w1')).toBeUndefined();
    expect(timeBase('caller', [{ process: 'w1', lowMs: -92, highMs: null, samples: 1 }]).queue(AT, 'w1')).toBeUndefined();
  });

  it("takes a server's stamps as written, whoever asked for the write: one clock for every row", () => {
    const base = timeBase('server', offsets);
    expect(base.queue(AT, 'w1')).toEqual({ earliest: MS, latest: MS });
    expect(base.queue(AT, null)).toEqual({ earliest: MS, latest: MS });
    expect(base.correction('w1')).toBeNull();
    expect(STAMPS_AS_WRITTEN.queue(AT, 'w9')).toEqual({ earliest: MS, latest: MS });
  });

  it("names a person's action the harness's (its own connection wrote it), any other row its process", () => {
    expect(writerOf({ actor: 'human', worker: null })).toBe(HARNESS_CLOCK);
    expect(writerOf({ actor: 'coordinator', worker: 'coordinator' })).toBe('coordinator');
  });
});
