import { describe, expect, it } from 'vitest';
import { ClockBook } from '../../src/faults/clock-book.js';

describe('ClockBook', () => {
  it("keeps each incarnation's tightest bound, and gives a process the bound that holds for every incarnation", () => {
    const book = new ClockBook();
    book.bound({ name: 'w1', incarnation: 1 }, -95, null);
    book.bound({ name: 'w1', incarnation: 1 }, -91, -87);
    book.bound({ name: 'w1', incarnation: 1 }, -93, -89);
    expect(book.offsets()).toEqual([{ process: 'w1', lowMs: -91, highMs: -89, samples: 3 }]);
    book.bound({ name: 'w1', incarnation: 2 }, -92, -90);
    book.bound({ name: 'coordinator', incarnation: 1 }, -1, null);
    expect(book.offsets()).toEqual([
      { process: 'coordinator', lowMs: -1, highMs: null, samples: 1 },
      { process: 'w1', lowMs: -92, highMs: -89, samples: 4 },
    ]);
  });
});
