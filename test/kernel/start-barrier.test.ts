import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/harness/wait-for.js';
import { ManualClock, systemClock } from '../../src/kernel/clock.js';
import { HarnessError } from '../../src/kernel/errors.js';
import { awaitRelease, RELEASE_LEAD_MS, readRelease, readyNames, release, signalReady } from '../../src/kernel/start-barrier.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The start barrier through a real directory: processes say they are ready,
 * the harness lets them go at one instant, each waits for it. The waiters here
 * are promises of this process; the protocol is files, so they stand for
 * processes (the drill's own runs use real producers).
 */

let temp: ReturnType<typeof tempRunDir>;
beforeEach(() => {
  temp = tempRunDir('barrier');
});
afterEach(() => temp.remove());

describe('start barrier', () => {
  it('holds every waiter until the release, then lets each go at the instant, not before', async () => {
    const dir = join(temp.dir, 'start');
    const clock = systemClock();
    const went: number[] = [];
    const waiters = ['p1', 'p2', 'p3'].map(async (name) => {
      signalReady(dir, name);
      const at = await awaitRelease(dir, { clock, timeoutMs: 10_000 });
      went.push(Date.now());
      return at;
    });
    await waitFor(() => readyNames(dir).length === 3, { timeoutMs: 5_000, what: 'three ready files' });
    expect(readyNames(dir)).toEqual(['p1', 'p2', 'p3']);
    expect(went).toEqual([]);
    expect(readRelease(dir)).toBeUndefined();
    const at = Date.now() + RELEASE_LEAD_MS;
    release(dir, at);
    expect(await Promise.all(waiters)).toEqual([at, at, at]);
    for (const time of went) expect(time).toBeGreaterThanOrEqual(at);
  });

  it('lets a waiter that comes after the release (a restart) go at once', async () => {
    const dir = join(temp.dir, 'start');
    const clock = new ManualClock(Date.UTC(2026, 7, 25));
    release(dir, clock.now() - 5_000);
    signalReady(dir, 'p1');
    expect(await awaitRelease(dir, { clock, timeoutMs: 1 })).toBe(clock.now() - 5_000);
  });

  it('fails with a harness error when nobody releases it before its deadline', async () => {
    const dir = join(temp.dir, 'start');
    const clock = systemClock();
    signalReady(dir, 'p1');
    const error = await awaitRelease(dir, { clock, timeoutMs: 30 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).code).toBe('QD_START_BARRIER_TIMEOUT');
  });

  it('refuses a release file that holds no instant', () => {
    const dir = join(temp.dir, 'start');
    signalReady(dir, 'p1');
    writeFileSync(join(dir, 'go'), 'soon\n');
    expect(() => readRelease(dir)).toThrow(/holds no instant/);
  });

  it('has no ready process in a directory not yet made', () => {
    expect(readyNames(join(temp.dir, 'nowhere'))).toEqual([]);
  });
});
