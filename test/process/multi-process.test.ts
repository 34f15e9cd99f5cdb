import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Child, Supervisor } from '../../src/harness/supervisor.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { systemClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import { SqliteQueue } from '../../src/reference/sqlite/sqlite-queue.js';
import { effectLogFor, readEffects } from '../../src/worker/effect-log.js';
import { groupAlive, tempRunDir } from '../helpers/run-dir.js';

const JOBS = 500;
const WORKERS = 4;
// Each worker stops after this many jobs: three cannot do all 500 (3 x 150 < 500), so every worker must have
// taken a share, at least 500 - 3 x 150 = 50. The race between them is certain, not merely likely.
const MAX_JOBS = 150;

/** The end of a child's stdout and stderr, for a failure's message. */
function logTail(child: Child): string {
  const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-15).join('\n') : '(no file)');
  return `${child.name} (${child.alive ? 'alive' : 'exited'}):\n${tail(child.logFile)}\n${tail(`${child.logFile}.err`)}`;
}

describe('4 worker processes and 2 producers racing on one SQLite file', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it(`does each of ${JOBS} jobs exactly once, leaves none running, and leaves no process behind`, { timeout: 90_000 }, async () => {
    const run = tempRunDir('multi');
    const supervisor = new Supervisor(run.dir);
    cleanup.push(run.remove, () => supervisor.stopAll());
    const store = join(run.dir, 'queue.db');
    const observer = SqliteQueue.open(store, { clock: systemClock(), random: seededRandom(1) });
    cleanup.push(() => observer.close());

    const claims = (name: string) =>
      observer.events().filter((e) => e.kind === 'transition' && e.to_status === 'running' && e.worker === name).length;

    const started = performance.now();
    // Both producers enqueue the same 500 keys, interleaved with the workers' claims.
    const producers = ['p1', 'p2'].map((name) => supervisor.spawn(name, ['producer', '--store', store, '--count', String(JOBS)]));
    const workers = Array.from({ length: WORKERS }, (_, i) =>
      supervisor.spawn(`w${i + 1}`, [
        'worker',
        '--store',
        store,
        '--id',
        `w${i + 1}`,
        '--lease-ms',
        '10000',
        '--poll-ms',
        '5',
        '--max-jobs',
        String(MAX_JOBS),
        '--seed',
        String(i + 1),
      ]),
    );
    for (const p of producers) expect((await p.exited).exitCode, logTail(p)).toBe(0);
    // A worker that stopped before its cap leaves work the others cannot finish (they stop at theirs): fail at
    // once, with its log, rather than wait for a deadline that cannot help.
    const stoppedEarly = () => workers.find((w) => !w.alive && claims(w.name) < MAX_JOBS);
    await waitFor(
      () => {
        const early = stoppedEarly();
        if (early) throw new Error(`${early.name} stopped after ${claims(early.name)} claims:\n${logTail(early)}`);
        return observer.counts().done === JOBS;
      },
      { timeoutMs: 40_000, what: `${JOBS} jobs done (${JOBS} is more than three workers' caps)` },
    ).catch((error: unknown) => {
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}; counts ${JSON.stringify(observer.counts())}\n${workers.map(logTail).join('\n')}`,
      );
    });
    const elapsedMs = performance.now() - started;

    // A worker that made its MAX_JOBS claims stops on its own: wait for that before the SIGTERM, which would
    // otherwise race its way out. Every other one is still polling, and stops on SIGTERM.
    const capped = workers.filter((w) => claims(w.name) === MAX_JOBS);
    for (const w of capped) expect(await w.exited, `${w.name} stops on its own at its cap`).toEqual({ exitCode: 0, signal: undefined });
    await supervisor.stopAll(5_000);
    for (const w of workers) expect(await w.exited, `${w.name} stops cleanly`).toEqual({ exitCode: 0, signal: undefined });
    for (const child of supervisor.all()) expect(groupAlive(child.pid), `${child.name} left a process`).toBe(false);

    const jobs = observer.jobs();
    expect(jobs).toHaveLength(JOBS);
    expect(observer.counts()).toEqual({ pending: 0, running: 0, retry: 0, done: JOBS, review: 0, compensating: 0 });
    for (const job of jobs) {
      expect(job.leased_by).toBeNull();
      expect(job.result_digest).toMatch(/^[0-9a-f]{64}$/);
      const history = observer.history(job.id);
      expect(history.filter((e) => e.to_status === 'running' && e.kind === 'transition')).toHaveLength(job.attempts);
      expect(history.filter((e) => e.to_status === 'done')).toHaveLength(1);
    }
    // Ground truth is the effect log, not the queue's own word: one effect per key.
    const effects = readEffects(effectLogFor(store));
    expect(effects).toHaveLength(JOBS);
    expect(new Set(effects.map((e) => e.key)).size).toBe(JOBS);
    for (const w of workers) {
      const share = effects.filter((e) => e.worker === w.name).length;
      expect(share, `${w.name}'s share of the work`).toBeGreaterThanOrEqual(JOBS - (WORKERS - 1) * MAX_JOBS);
      expect(share, `${w.name}'s share of the work`).toBeLessThanOrEqual(MAX_JOBS);
    }

    // The figures for the issue note: wall time with process starts, and the workers' own rate, first claim to last done.
    const events = observer.events();
    const firstClaim = Date.parse(events.find((e) => e.to_status === 'running')!.at);
    const lastDone = Date.parse(events.filter((e) => e.to_status === 'done').at(-1)!.at);
    console.log(
      `multi-process: ${JOBS} jobs by ${WORKERS} workers in ${elapsedMs.toFixed(0)} ms with process starts; ` +
        `${lastDone - firstClaim} ms first claim to last done = ${((JOBS / (lastDone - firstClaim)) * 1000).toFixed(0)} jobs/s`,
    );
  });
});
