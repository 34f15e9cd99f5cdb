import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type StarvedLine, watchStarvation } from '../../src/kernel/starvation-watch.js';

/*
 * The watch every drill process runs: a time it could not run its timers is a
 * starved span in its file; a time it spent computing is its own work, not
 * starvation; nothing is written when nobody asked (no file named).
 */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function spansIn(file: string): StarvedLine[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as StarvedLine);
  } catch {
    return [];
  }
}

/** Waits (on timers, not a sleep of fixed length) until `ok` holds or a deadline passes. */
async function until(ok: () => boolean, deadlineMs = 5_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!ok() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('watchStarvation', () => {
  it('writes a span for a time the process was held (no CPU of its own), with how long', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qd-starve-'));
    dirs.push(dir);
    const file = join(dir, 'w1.1.log.starved');
    // The process's own CPU as the watch reads it (process.cpuUsage); its clock passed in, so the hold is a step of
    // the clock rather than a fixed sleep of the test's.
    let now = 1_000;
    let looks = 0;
    const watch = watchStarvation({
      file,
      tickMs: 10,
      starvedMs: 50,
      now: () => {
        looks++;
        return now;
      },
    });
    try {
      // Let the timer look once, then move the clock 210 ms while the process computes nothing (as a descheduled
      // process, or a synchronous wait, sees it).
      await until(() => looks > 1);
      now += 210;
      await until(() => spansIn(file).length > 0);
    } finally {
      watch.stop();
    }
    const [span] = spansIn(file);
    expect(span).toBeDefined();
    expect(span!.lateMs).toBeGreaterThanOrEqual(150);
    expect(span!.to - span!.from).toBeGreaterThanOrEqual(span!.lateMs - 20);
  });

  it("does not count the process's own computing as starvation", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qd-starve-'));
    dirs.push(dir);
    const file = join(dir, 'w1.1.log.starved');
    let cpu = 0;
    let now = 1_000;
    let looks = 0;
    const lookAtNow = () => {
      looks++;
      return now;
    };
    const watch = watchStarvation({ file, tickMs: 10, starvedMs: 50, now: lookAtNow, cpu: () => cpu });
    try {
      // 300 ms late, all of it spent on the CPU by the process itself: its own work.
      now += 310;
      cpu += 300;
      const seen = looks;
      await until(() => looks > seen + 1);
      // 300 ms late with no CPU used: not run.
      now += 310;
      await until(() => spansIn(file).length > 0);
    } finally {
      watch.stop();
    }
    const spans = spansIn(file);
    expect(spans).toHaveLength(1);
    expect(spans[0]!.lateMs).toBe(300);
  });

  it('does nothing when the harness named no file', () => {
    const before = process.env.QD_STARVED_LOG;
    delete process.env.QD_STARVED_LOG;
    try {
      const watch = watchStarvation();
      watch.stop();
    } finally {
      if (before !== undefined) process.env.QD_STARVED_LOG = before;
    }
  });
});
