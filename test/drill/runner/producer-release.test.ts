import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProducerRelease, readyToRelease } from '../../../src/drill/runner/producer-release.js';
import { Timeline } from '../../../src/drill/timeline.js';
import { ManualClock } from '../../../src/kernel/clock.js';
import { RELEASE_LEAD_MS, readRelease, signalReady } from '../../../src/kernel/start-barrier.js';
import { tempRunDir } from '../../helpers/run-dir.js';

let temp: ReturnType<typeof tempRunDir>;
beforeEach(() => {
  temp = tempRunDir('release');
});
afterEach(() => temp.remove());

const never = () => false;

describe('readyToRelease', () => {
  it('waits for every producer to be ready', () => {
    expect(readyToRelease(['p1', 'p2'], new Set(['p1']), never)).toBe(false);
    expect(readyToRelease(['p1', 'p2'], new Set(['p1', 'p2']), never)).toBe(true);
  });

  it('does not wait for a producer that died before it was ready', () => {
    expect(readyToRelease(['p1', 'p2'], new Set(['p2']), (name) => name === 'p1')).toBe(true);
  });
});

describe('ProducerRelease', () => {
  it('lets the producers go once, at one instant just ahead, when all are ready, and says so on the timeline', () => {
    const dir = join(temp.dir, 'start-barrier');
    const clock = new ManualClock(Date.UTC(2026, 7, 25, 10));
    const timeline = new Timeline(clock);
    const producers = new ProducerRelease(dir, ['p1', 'p2', 'p3'], timeline);
    expect(producers.waiting).toBe(true);
    signalReady(dir, 'p1');
    signalReady(dir, 'p3');
    producers.tend(never, clock.now());
    expect(readRelease(dir)).toBeUndefined();
    expect(producers.waiting).toBe(true);
    signalReady(dir, 'p2');
    producers.tend(never, clock.now());
    // Let go: the supervision loop's watchdog counts from here (not while the producers were still starting).
    expect(producers.waiting).toBe(false);
    const at = clock.now() + RELEASE_LEAD_MS;
    expect(readRelease(dir)).toBe(at);
    clock.advance(1_000);
    producers.tend(never, clock.now());
    expect(readRelease(dir)).toBe(at);
    expect(timeline.events.map((e) => [e.kind, e.detail])).toEqual([
      ['note', `producers p1, p2, p3 released to begin enqueueing together at ${new Date(at).toISOString()}`],
    ]);
  });

  it('names a producer that died before it was ready', () => {
    const dir = join(temp.dir, 'start-barrier');
    const clock = new ManualClock(Date.UTC(2026, 7, 25, 10));
    const timeline = new Timeline(clock);
    signalReady(dir, 'p2');
    new ProducerRelease(dir, ['p1', 'p2'], timeline).tend((name) => name === 'p1', clock.now());
    expect(timeline.events[0]?.detail).toMatch(/^producers p2 released .* \(p1 died before it was ready, and begins when restarted\)$/);
  });
});
