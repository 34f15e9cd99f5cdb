import { describe, expect, it } from 'vitest';
import { atRest, type DrillState, quietMs, RestWatch, STALL_MS, StallWatch, Watchdog } from '../../../src/drill/runner/rest.js';
import type { JobSnapshot } from '../../../src/port/snapshot.js';

const job = (status: JobSnapshot['status'], outcome: JobSnapshot['outcome'] = null) => ({ status, outcome }) as JobSnapshot;
const state = (overrides: Partial<DrillState> = {}): DrillState => ({
  jobs: [job('done', 'done'), job('review', 'review')],
  expectedJobs: 2,
  held: 0,
  producing: false,
  restarting: false,
  approve: true,
  ...overrides,
});

describe('atRest', () => {
  it('holds when every job the scenario asked for is done or in review, and nothing is held, producing or restarting', () => {
    expect(atRest(state())).toBe(true);
  });

  it.each([
    ['a process held by a pause', { held: 1 }],
    ['a producer still at work', { producing: true }],
    ['a process about to be started again', { restarting: true }],
    ['a job not yet made', { expectedJobs: 3 }],
    ['a job still running', { jobs: [job('done', 'done'), job('running')] }],
    ['a job waiting for a retry', { jobs: [job('retry')], expectedJobs: 1 }],
    ['a saga still compensating', { jobs: [job('compensating')], expectedJobs: 1 }],
    ['a job waiting for an approval the harness will give', { jobs: [job('review', 'awaiting_approval')], expectedJobs: 1 }],
  ])('does not hold with %s', (_what, overrides) => {
    expect(atRest(state(overrides as Partial<DrillState>))).toBe(false);
  });

  it('holds with a job waiting for an approval nobody will give (approvals off): a person must act', () => {
    expect(atRest(state({ jobs: [job('review', 'awaiting_approval')], expectedJobs: 1, approve: false }))).toBe(true);
  });
});

describe('quietMs', () => {
  it('is long enough for a poll or a tick to have seen the rest, and at least 100 ms', () => {
    expect(quietMs({ poll_ms: 10, tick_ms: 25 })).toBe(100);
    expect(quietMs({ poll_ms: 50, tick_ms: 25 })).toBe(150);
    expect(quietMs({ poll_ms: 10, tick_ms: 80 })).toBe(160);
  });
});

describe('Watchdog', () => {
  it('is stuck only once nothing has changed for its limit, and any change starts the count again', () => {
    const watchdog = new Watchdog(1_000);
    expect(watchdog.stuck('a', 0)).toBe(false);
    expect(watchdog.stuck('a', 999)).toBe(false);
    expect(watchdog.stuck('b', 1_500)).toBe(false);
    expect(watchdog.stuck('b', 2_499)).toBe(false);
    expect(watchdog.stuck('b', 2_500)).toBe(true);
  });

  it('starts its window again after a pause of the harness: the frozen time is not counted as no progress', () => {
    const watchdog = new Watchdog(1_000);
    expect(watchdog.stuck('a', 0)).toBe(false);
    // The machine was frozen from 10 ms to 9,010 ms; nothing could change meanwhile.
    watchdog.restart(9_010);
    expect(watchdog.stuck('a', 9_010)).toBe(false);
    expect(watchdog.stuck('a', 10_009)).toBe(false);
    expect(watchdog.stuck('a', 10_010)).toBe(true);
  });
});

describe('StallWatch', () => {
  it('reports a tick that came much later than the one before as a pause of that length, and nothing otherwise', () => {
    const stalls = new StallWatch();
    expect(stalls.pausedBefore(1_000)).toBe(0);
    expect(stalls.pausedBefore(1_050)).toBe(0);
    // A slow tick (a loaded machine) is not a pause.
    expect(stalls.pausedBefore(1_050 + STALL_MS)).toBe(0);
    expect(stalls.pausedBefore(1_050 + STALL_MS + 8_000)).toBe(8_000);
    expect(stalls.pausedBefore(1_050 + STALL_MS + 8_020)).toBe(0);
  });
});

describe('RestWatch', () => {
  it('settles once the drill has stayed at rest for the quiet time; leaving rest starts it again', () => {
    const watch = new RestWatch(100);
    expect(watch.settled(true, 0)).toBe(false);
    expect(watch.settled(true, 99)).toBe(false);
    expect(watch.settled(false, 100)).toBe(false);
    expect(watch.settled(true, 150)).toBe(false);
    expect(watch.settled(true, 250)).toBe(true);
  });

  it('forgets the rest it saw before a pause of the harness', () => {
    const watch = new RestWatch(100);
    expect(watch.settled(true, 0)).toBe(false);
    watch.reset();
    expect(watch.settled(true, 9_000)).toBe(false);
    expect(watch.settled(true, 9_100)).toBe(true);
  });
});
