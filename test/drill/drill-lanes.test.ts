import { describe, expect, it } from 'vitest';
import { drillLanes, LaneCount, lanesLine, MAX_AUTO_EXPLORE_LANES, MAX_AUTO_LANES, parseParallel } from '../../src/drill/drill-lanes.js';
import { DEFAULT_PARALLEL } from '../../src/kernel/defaults.js';
import { lanesText } from '../../src/report/starvation-lines.js';

const quiet = { startupMs: 96, timerLatenessMs: 1, scale: 1 };
const busy = { startupMs: 357, timerLatenessMs: 4, scale: 1 };

describe('how many scenarios a drill runs at once', () => {
  it('runs more than the default only where auto found the machine quiet', () => {
    expect(drillLanes('auto', quiet, { cores: 2 })).toMatchObject({ count: MAX_AUTO_LANES, chosen: 'auto', narrowedAfter: null });
    expect(drillLanes('auto', quiet, { cores: 2 }).why).toBe('a quiet machine (a process started in 96 ms, a timer fired 1 ms late; 2 cores)');
    expect(drillLanes('auto', quiet, { cores: 1 }).count).toBe(DEFAULT_PARALLEL);
    // Explore's most: 3 a core, at most 6.
    expect(drillLanes('auto', quiet, { cores: 2, most: MAX_AUTO_EXPLORE_LANES }).count).toBe(6);
    expect(drillLanes('auto', quiet, { cores: 1, most: MAX_AUTO_EXPLORE_LANES }).count).toBe(3);
    expect(drillLanes('auto', busy, { cores: 2, most: MAX_AUTO_EXPLORE_LANES }).count).toBe(DEFAULT_PARALLEL);
    expect(drillLanes('auto', busy, { cores: 2 })).toMatchObject({
      count: DEFAULT_PARALLEL,
      why: 'a busy machine (a process started in 357 ms, a timer fired 4 ms late)',
    });
    expect(drillLanes('auto', { ...quiet, timerLatenessMs: 9 }, { cores: 2 }).count).toBe(DEFAULT_PARALLEL);
    expect(drillLanes('auto', null, { cores: 2 })).toMatchObject({
      count: DEFAULT_PARALLEL,
      why: 'the machine was not measured (a time scale was given)',
    });
    expect(drillLanes(3, quiet, { cores: 2 })).toEqual({ count: 3, chosen: 'given', why: '--parallel 3', narrowedAfter: null });
  });

  it('takes auto or a count from the command line, and refuses anything else as bad input', () => {
    expect(parseParallel('auto')).toBe('auto');
    expect(parseParallel(' 3 ')).toBe(3);
    for (const bad of ['0', '17', '2.5', 'x', ''])
      expect(() => parseParallel(bad)).toThrow(`--parallel must be auto or a whole number from 1 to 16, got ${bad}`);
  });

  it('says so on the console and in the report', () => {
    const lanes = drillLanes('auto', quiet, { cores: 2 });
    expect(lanesLine(lanes)).toBe('4 scenarios at once (auto: a quiet machine (a process started in 96 ms, a timer fired 1 ms late; 2 cores))');
    expect(lanesLine(drillLanes(1, null))).toBe('1 scenario at once (given)');
    expect(lanesText({ lanes: { ...lanes, narrowedAfter: 'zombie-worker' } })).toMatch(
      /^4 scenarios at once \(auto: .*\); back to 2 after zombie-worker, which ran again$/,
    );
    expect(lanesText({})).toBeNull();
  });
});

/** A scenario run that ends when the test says, counting how many run at once. */
function runs() {
  let now = 0;
  let most = 0;
  const ends: Array<() => void> = [];
  const start = (lanes: LaneCount) =>
    lanes.during(async () => {
      now++;
      most = Math.max(most, now);
      await new Promise<void>((resolve) => ends.push(resolve));
      now--;
    });
  return { start, ends, running: () => now, most: () => most };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('auto stepping back after a crowded inconclusive run', () => {
  it('takes no more in the lanes past the default, and lets the run again start once the others have drained', async () => {
    const lanes = drillLanes('auto', quiet, { cores: 2 });
    const count = new LaneCount(lanes);
    const r = runs();
    expect(count.crowded()).toBe(true);
    expect([0, 1, 2, 3].map((lane) => count.takesMore(lane))).toEqual([true, true, true, true]);
    const others = [r.start(count), r.start(count), r.start(count)];
    await settle();
    expect(r.running()).toBe(3);

    // A fourth run came out inconclusive: it has ended, three others still run.
    let again = false;
    const narrowed = count.narrowAfter('zombie-worker').then(() => {
      again = true;
    });
    expect(count.crowded()).toBe(false);
    expect([0, 1, 2, 3].map((lane) => count.takesMore(lane))).toEqual([true, true, false, false]);
    expect(lanes.narrowedAfter).toBe('zombie-worker');
    r.ends.shift()?.();
    await settle();
    expect(again).toBe(false);
    // One other left: the run again makes two, the default.
    r.ends.shift()?.();
    await narrowed;
    expect(again).toBe(true);
    expect(r.running()).toBe(1);
    r.ends.shift()?.();
    await Promise.all(others);
    expect(r.most()).toBe(3);

    // A second one names nothing new: the first is what sent the drill back.
    await count.narrowAfter('crash-after-claim');
    expect(lanes.narrowedAfter).toBe('zombie-worker');
  });

  it('never narrows lanes given on the command line', () => {
    const count = new LaneCount(drillLanes(4, quiet, { cores: 2 }));
    expect(count.crowded()).toBe(false);
  });
});
