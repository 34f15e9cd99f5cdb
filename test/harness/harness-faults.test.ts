import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { waitFor } from '../../src/harness/wait-for.js';
import type { DrillReport } from '../../src/report/schema.js';
import {
  disposeOwnServers,
  type OwnServer,
  skipWithoutOwnPostgres,
  skipWithoutOwnRedis,
  startOwnPostgres,
  startOwnRedis,
} from '../helpers/own-servers.js';
import { childrenMentioning, descendantsOf, describeProcess, isRunning, isStopped, processesMentioning } from '../helpers/processes.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * When the harness's own world fails under a drill (its queue's server
 * stopped, restarted, frozen or killed, its world host killed, its disk full),
 * the scenario in flight ends as an error naming what happened, never a pass
 * or a fail; every scenario judged before keeps its verdict in the report;
 * the run exits 3 soon after, and leaves no process. The servers are the
 * test's own (other ports), so breaking them disturbs no one.
 */

const FILE = 'test/fixtures/scenarios/harness-faults.yaml';
/** The fixture's timeout_ms plus the harness's own deadlines after a loss (src/drill/run-scenario.ts): the most a broken drill may take. */
const ENDS_WITHIN_MS = 12_000 + 15_000;

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
  await disposeOwnServers();
});

interface Drill {
  harness: ResultPromise<{ reject: false }>;
  out: string;
  /** Every process under the harness once held was frozen. */
  processes: number[];
}

/** Starts the drill (quick, then held, one at a time) and resolves once held's worker is frozen at its claim. */
async function drillUntilHeld(extra: string[], out?: string): Promise<Drill> {
  const dir = out ?? tempRunDir('harness-faults').dir;
  if (!out) cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const harness = execa(process.execPath, [CLI_PATH, 'run', FILE, '--parallel', '1', '--time-scale', '1', '--out', dir, ...extra], { reject: false });
  cleanup.push(() => {
    harness.kill('SIGKILL');
  });
  // Under the harness, however deep: a worker on a server queue names no path of the run directory.
  await waitFor(() => descendantsOf(harness.pid!).some(isStopped), { timeoutMs: 30_000, intervalMs: 20, what: `held's worker frozen in ${dir}` });
  return { harness, out: dir, processes: descendantsOf(harness.pid!) };
}

/** The drill's exit and how long it took after `from`, once nothing of it is left running. */
async function ended(drill: Drill, from: number): Promise<{ exitCode: number | undefined; tookMs: number; stderr: string }> {
  const result = await drill.harness;
  const tookMs = Date.now() - from;
  const left = () => [...new Set([...drill.processes, ...processesMentioning(drill.out)])].filter(isRunning);
  await waitFor(() => left().length === 0, { timeoutMs: 3_000, intervalMs: 20, what: 'every process of the drill to be gone' }).catch((error) => {
    throw new Error(`${String(error)}; still running:\n${left().map(describeProcess).join('\n')}`);
  });
  return { exitCode: result.exitCode, tookMs, stderr: String(result.stderr) };
}

function latestReport(out: string): DrillReport {
  return JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as DrillReport;
}

/** Whether the report the drill writes as it goes has held's verdict yet. */
function heldJudged(out: string): boolean {
  try {
    return verdicts(latestReport(out)).held !== undefined;
  } catch {
    return false; // not written yet
  }
}

function verdicts(report: DrillReport): Record<string, string> {
  return Object.fromEntries(report.scenarios.map((s) => [s.name, s.verdict]));
}

function errorOf(report: DrillReport, name: string): string {
  return report.scenarios.find((s) => s.name === name)?.error ?? '(no error)';
}

describe('the harness when its world fails under a drill', () => {
  it('ends the scenario as an error naming the world host SIGKILLed under it, and keeps the verdict before', { timeout: 90_000 }, async () => {
    const drill = await drillUntilHeld([]);
    const host = childrenMentioning(drill.harness.pid!, 'world-host');
    expect(host).toHaveLength(1);
    const killedAt = Date.now();
    process.kill(host[0]!, 'SIGKILL');
    const { exitCode, tookMs } = await ended(drill, killedAt);
    const report = latestReport(drill.out);
    expect(exitCode).toBe(3);
    expect(verdicts(report)).toEqual({ quick: 'pass', held: 'error' });
    expect(errorOf(report, 'held')).toMatch(new RegExp(`the world's process \\(pid ${host[0]}\\) was killed by SIGKILL during the drill`));
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
  });

  it('writes the report as it goes, unfinished while it runs, and ends within 5 s of SIGTERM with the final one', { timeout: 90_000 }, async () => {
    const drill = await drillUntilHeld([]);
    const soFar = latestReport(drill.out);
    expect(soFar.interruption).toMatchObject({ unfinished: true, notStarted: [{ name: 'held' }] });
    expect(soFar.exitCode).toBe(3);
    expect(verdicts(soFar)).toEqual({ quick: 'pass' });
    expect(readFileSync(join(drill.out, 'latest', 'report.md'), 'utf8')).toMatch(/## Unfinished/);
    const stoppedAt = Date.now();
    drill.harness.kill('SIGTERM');
    const { exitCode, tookMs } = await ended(drill, stoppedAt);
    const report = latestReport(drill.out);
    expect(exitCode).toBe(3);
    expect(report.interruption).toEqual({ by: 'SIGTERM', notStarted: [] });
    expect(verdicts(report)).toEqual({ quick: 'pass', held: 'interrupted' });
    expect(tookMs).toBeLessThan(5_000);
  });

  it('ends the scenario as an error when the run directory’s disk fills up under it', { timeout: 90_000 }, async () => {
    const mount = tempRunDir('harness-faults-disk').dir;
    const mounted = await execa('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount], { reject: false });
    if (mounted.exitCode !== 0) {
      console.warn(`cannot mount a small tmpfs here (${String(mounted.stderr).trim()}), so skipped: a full disk under a drill`);
      rmSync(mount, { recursive: true, force: true });
      return;
    }
    cleanup.push(async () => {
      await execa('umount', ['-l', mount], { reject: false });
      rmSync(mount, { recursive: true, force: true });
    });
    const out = join(mount, 'runs');
    mkdirSync(out);
    const drill = await drillUntilHeld([], out);
    const filledAt = Date.now();
    // Everything the tmpfs has left: the drill's processes can no longer write their logs.
    await execa('dd', ['if=/dev/zero', `of=${join(mount, 'filler')}`, 'bs=64k'], { reject: false });
    const { exitCode, tookMs, stderr } = await ended(drill, filledAt);
    expect(exitCode).toBe(3);
    expect(stderr).toMatch(/ERROR\s+held/);
    expect(stderr).toMatch(/is full/);
    // The report on disk is the last one the drill could write: quick's verdict is in it.
    rmSync(join(mount, 'filler'), { force: true });
    expect(verdicts(latestReport(out)).quick).toBe('pass');
    expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
  });
});

/** A PostgreSQL or Redis of the test's own, broken by `breakIt` while held runs; the verdicts and the error that follow. */
async function serverLost(server: OwnServer, queueArgs: string[], breakIt: (server: OwnServer, drill: Drill) => Promise<void>) {
  const drill = await drillUntilHeld(queueArgs);
  const brokenAt = Date.now();
  await breakIt(server, drill);
  const end = await ended(drill, brokenAt);
  return { ...end, report: latestReport(drill.out) };
}

/** SIGTERM right after the server is broken under held: the harness ends within 5 s, with the report of what it judged. */
async function expectSigtermEndsSoon(server: OwnServer, queueArgs: string[], breakIt: (server: OwnServer) => Promise<void>): Promise<void> {
  const drill = await drillUntilHeld(queueArgs);
  await breakIt(server);
  const stoppedAt = Date.now();
  drill.harness.kill('SIGTERM');
  const { exitCode, tookMs } = await ended(drill, stoppedAt);
  const report = latestReport(drill.out);
  expect(exitCode).toBe(3);
  expect(verdicts(report).quick).toBe('pass');
  expect(report.interruption).toMatchObject({ by: 'SIGTERM' });
  expect(tookMs).toBeLessThan(5_000);
}

const LOST = /the queue's server stopped answering the harness .* and no fault of this scenario restarted it|cannot connect to/;

describe.skipIf(skipWithoutOwnPostgres('a PostgreSQL lost under a drill (test/harness/harness-faults.test.ts)'))(
  'the harness when the queue’s PostgreSQL fails under a drill',
  () => {
    // Back while the drill still runs, once the harness has given it up (held's verdict is in the report it writes as
    // it goes): an outage that ends too late is still the drill's error, however long the machine took to notice it.
    const restartedOnceGivenUp = async (pg: OwnServer, drill: Drill) => {
      await pg.stop();
      await waitFor(() => heldJudged(drill.out), { timeoutMs: ENDS_WITHIN_MS, intervalMs: 50, what: "held's verdict in the report" });
      await pg.start();
    };
    it.each([
      ['stopped', (pg: OwnServer) => pg.stop()],
      ['restarted once the drill gave it up', restartedOnceGivenUp],
      ['frozen', (pg: OwnServer) => pg.freeze()],
    ])('ends the scenario as an error when the server is %s, and exits 3', { timeout: 120_000 }, async (_what, breakIt) => {
      const pg = await startOwnPostgres();
      const { exitCode, report, tookMs } = await serverLost(pg, ['--queue', 'postgres', '--pg-url', pg.url], breakIt);
      expect(exitCode).toBe(3);
      expect(verdicts(report)).toEqual({ quick: 'pass', held: 'error' });
      expect(errorOf(report, 'held')).toMatch(LOST);
      expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
    });

    it('exits within 5 s of SIGTERM while a frozen server holds the harness, with the report of what was judged', { timeout: 120_000 }, async () => {
      const pg = await startOwnPostgres();
      await expectSigtermEndsSoon(pg, ['--queue', 'postgres', '--pg-url', pg.url], (server) => server.freeze());
    });
  },
);

describe.skipIf(skipWithoutOwnRedis('a Redis lost under a drill (test/harness/harness-faults.test.ts)'))(
  'the harness when the queue’s Redis fails under a drill',
  () => {
    it('ends the scenario as an error when Redis is killed, and exits 3', { timeout: 120_000 }, async () => {
      const redis = await startOwnRedis();
      const { exitCode, report, tookMs } = await serverLost(redis, ['--queue', 'bullmq', '--redis-url', redis.url], (r) => r.kill());
      expect(exitCode).toBe(3);
      expect(verdicts(report)).toEqual({ quick: 'pass', held: 'error' });
      expect(errorOf(report, 'held')).toMatch(LOST);
      expect(tookMs).toBeLessThan(ENDS_WITHIN_MS);
      // An outage is the server's: never told as a pause of the harness.
      const timeline = report.scenarios.find((s) => s.name === 'held')?.timeline ?? [];
      const told = timeline.map((event) => event.detail).join('\n');
      expect(told).toMatch(/the queue did not answer the harness/);
      expect(told).not.toMatch(/the harness did not run/);
    });

    it('exits within 5 s of SIGTERM while the harness waits on a killed Redis, with the report of what was judged', {
      timeout: 120_000,
    }, async () => {
      const redis = await startOwnRedis();
      await expectSigtermEndsSoon(redis, ['--queue', 'bullmq', '--redis-url', redis.url], (server) => server.kill());
    });
  },
);
