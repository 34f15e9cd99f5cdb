import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { Logger, makeWorkerUtils, type Runner, type RunnerOptions, run, runMigrations, type WorkerEvents, type WorkerUtils } from 'graphile-worker';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PG_URL, skipWithoutPg } from '../helpers/postgres.js';

/*
 * Probes of graphile-worker 0.16 alone (its public API, no queue-drill code):
 * what the findings printed about graphile-worker rest on. Each probe gets a
 * database of its own, not only a schema: graphile's migrations announce
 * themselves on the database-wide channel `worker:migrate` as breaking, and
 * every runner of that database, whatever its schema, shuts down on hearing
 * it (the last probe shows it). The SQL behind each fact is in
 * node_modules/graphile-worker/sql/*.sql and dist/sql/*.js (see docs/probes.md).
 */

const silent = new Logger(() => () => {});

/** Polls `check` until it holds, or fails after `ms` naming what it waited for. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A job row as graphile's public view shows it. */
interface JobRow {
  id: string;
  key: string | null;
  attempts: number;
  max_attempts: number;
  run_at: Date;
  locked_at: Date | null;
  locked_by: string | null;
  last_error: string | null;
}

/** A fresh database with graphile migrated into it, the runners and children started on it, and their removal. */
interface Namespace {
  url: string;
  utils: WorkerUtils;
  events: WorkerEvents;
  run(options: Omit<RunnerOptions, 'connectionString'>): Promise<Runner>;
  spawned(child: ChildProcess): void;
  rows(): Promise<JobRow[]>;
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  close(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function namespace(): Promise<Namespace> {
  const database = `probe_gw_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  await admin((client) => client.query(`CREATE DATABASE ${database} TEMPLATE template0`));
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  const runners: Runner[] = [];
  const children: ChildProcess[] = [];
  const events = new EventEmitter() as WorkerEvents;
  let utils: WorkerUtils | undefined;
  const close = async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const runner of runners.reverse()) await runner.stop().catch(() => {});
    await utils?.release();
    // A stopped runner's pool may still be closing its connections: cut one mid-close (WITH (FORCE)) and its client
    // emits the server's FATAL where nobody listens any more. So wait for them to be gone first.
    await until('the runners to close their connections', async () => {
      const { rows } = await admin((client) => client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database]));
      return rows[0].n === 0;
    }).catch(() => undefined);
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  };
  try {
    utils = await makeWorkerUtils({ connectionString: url.href, logger: silent });
    await utils.migrate();
  } catch (error) {
    await close();
    throw error;
  }
  const made = utils;
  return {
    url: url.href,
    utils: made,
    events,
    async run(options) {
      const runner = await run({ pollInterval: 100, noHandleSignals: true, logger: silent, events, ...options, connectionString: url.href });
      runners.push(runner);
      return runner;
    },
    spawned: (child) => children.push(child),
    rows: async () =>
      (
        await made.withPgClient((client) =>
          client.query<JobRow>(
            'SELECT id::text, key, attempts, max_attempts, run_at, locked_at, locked_by, last_error FROM graphile_worker.jobs ORDER BY id',
          ),
        )
      ).rows,
    sql: (text, values) => made.withPgClient((client) => client.query(text, values)),
    close,
  };
}

/** A promise and its resolve, to hold a task until the probe lets it go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/*
 * A worker in a process of its own that takes one job and never returns from
 * it, so that a SIGKILL leaves the row exactly as a crashed worker does.
 */
const DYING_WORKER = `
const { run, Logger } = require(process.env.GW_PATH);
run({
  connectionString: process.env.GW_URL,
  concurrency: 1,
  pollInterval: 100,
  noHandleSignals: true,
  logger: new Logger(() => () => {}),
  taskList: { probe: (_payload, helpers) => { process.stdout.write('running ' + helpers.job.id + '\\n'); return new Promise(() => {}); } },
}).catch((error) => { console.error(error); process.exit(1); });
`;

describe.skipIf(skipWithoutPg('the graphile-worker probes'))('graphile-worker 0.16 alone', () => {
  let ns: Namespace | undefined;
  afterEach(async () => {
    await ns?.close();
    ns = undefined;
  });

  it("graphile-worker runs a second job beside the first when addJob repeats a running job's key in the default 'replace' mode", async () => {
    ns = await namespace();
    const held = gate();
    const running = new Set<string>();
    let mostAtOnce = 0;
    await ns.run({
      concurrency: 2,
      taskList: {
        probe: async (_payload, helpers) => {
          running.add(helpers.job.id);
          mostAtOnce = Math.max(mostAtOnce, running.size);
          await held.promise;
          running.delete(helpers.job.id);
        },
      },
    });
    const first = await ns.utils.addJob('probe', { n: 1 }, { jobKey: 'k' });
    await until('the first job to start', () => running.has(first.id));

    // add_jobs clears the key of a locked job (and sets its attempts to max_attempts), then inserts a new row.
    const second = await ns.utils.addJob('probe', { n: 2 }, { jobKey: 'k' });
    expect(second.id).not.toBe(first.id);
    await until('the second job to start while the first still runs', () => running.has(second.id));
    expect(mostAtOnce).toBe(2);
    expect((await ns.rows()).map(({ id, key, attempts, max_attempts }) => ({ id, key, attempts, max_attempts }))).toEqual([
      { id: first.id, key: null, attempts: 25, max_attempts: 25 },
      { id: second.id, key: 'k', attempts: 1, max_attempts: 25 },
    ]);

    held.open();
    await until('both jobs to complete (their rows deleted)', async () => (await ns!.rows()).length === 0);
  });

  it('graphile-worker completes a job by its id alone: a worker whose lock was freed finishes and deletes the job another worker is running', async () => {
    ns = await namespace();
    const first = gate();
    const second = gate();
    const runningOn = new Map<string, string>();
    const lockedBy = new Map<string, string>();
    const task = (runner: string, held: Promise<void>) => async (_payload: unknown, helpers: { job: { id: string; locked_by: string | null } }) => {
      runningOn.set(runner, helpers.job.id);
      lockedBy.set(runner, helpers.job.locked_by ?? '');
      await held;
      runningOn.delete(runner);
    };
    await ns.run({ concurrency: 1, taskList: { probe: task('A', first.promise) as never } });
    const job = await ns.utils.addJob('probe', { n: 1 });
    await until('worker A to run the job', () => runningOn.get('A') === job.id);

    // A's lock is freed (as a deployment's unlock of a silent worker would), and worker B takes the job.
    await ns.utils.forceUnlockWorkers([lockedBy.get('A')!]);
    await ns.run({ concurrency: 1, taskList: { probe: task('B', second.promise) as never } });
    await until('worker B to run the same job', () => runningOn.get('B') === job.id);
    expect((await ns.rows()).map(({ id, locked_by }) => ({ id, locked_by }))).toEqual([{ id: job.id, locked_by: lockedBy.get('B') }]);

    // A finishes late: completeJob deletes by id, whoever holds the row; B is still running a job that is gone.
    first.open();
    await until("A's late complete to delete the row", async () => (await ns!.rows()).length === 0);
    expect(runningOn.get('B')).toBe(job.id);
    second.open();
    await until('B to finish', () => !runningOn.has('B'));
  });

  it('graphile-worker deletes a completed job, so addJob with the same key after it made a new job that runs again', async () => {
    ns = await namespace();
    const ran: string[] = [];
    await ns.run({ concurrency: 1, taskList: { probe: (_payload, helpers) => void ran.push(helpers.job.id) } });

    const first = await ns.utils.addJob('probe', {}, { jobKey: 'k' });
    await until('the first job to run and its row to be deleted', async () => ran.length === 1 && (await ns!.rows()).length === 0);

    const again = await ns.utils.addJob('probe', {}, { jobKey: 'k' });
    expect(again.id).not.toBe(first.id);
    await until('the job of the same key to run a second time', () => ran.length === 2);
    expect(ran).toEqual([first.id, again.id]);
  });

  it("graphile-worker leaves a dead worker's job locked until the sweep finds locked_at more than 4 hours old", async () => {
    ns = await namespace();
    const job = await ns.utils.addJob('probe', { n: 1 });

    // A real worker process takes the job and is SIGKILLed while its task runs.
    const child = spawn(process.execPath, ['-e', DYING_WORKER], {
      env: { ...process.env, GW_PATH: createRequire(import.meta.url).resolve('graphile-worker'), GW_URL: ns.url },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    ns.spawned(child);
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    await until('the worker process to start the job', () => out.includes(`running ${job.id}\n`), 20_000);
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const [dead] = await ns.rows();
    expect(dead).toMatchObject({ id: job.id, attempts: 1, locked_by: expect.stringMatching(/^worker-/) });
    expect(dead?.locked_at).toBeInstanceOf(Date);

    // A live worker sweeps for stale locks every 600 ms (the default is every 8 to 10 min) and polls every 100 ms.
    const timeline: string[] = [];
    ns.events.on('resetLocked:success', () => timeline.push('sweep'));
    ns.events.on('worker:getJob:empty', () => timeline.push('empty'));
    ns.events.on('job:start', ({ job: started }) => timeline.push(`start ${started.id}`));
    const ran: string[] = [];
    await ns.run({
      concurrency: 1,
      minResetLockedInterval: 600,
      maxResetLockedInterval: 600,
      taskList: { probe: (_payload, helpers) => void ran.push(helpers.job.id) },
    });
    const control = await ns.utils.addJob('probe', { n: 2 });
    const count = (what: string) => timeline.filter((event) => event === what).length;
    await until('the live worker to run a later job and sweep three times', () => ran.includes(control.id) && count('sweep') >= 3);
    expect(ran).toEqual([control.id]);
    expect((await ns.rows()).map(({ id, locked_by }) => ({ id, locked_by }))).toEqual([{ id: job.id, locked_by: dead?.locked_by }]);

    // Backdate the lock as graphile's own tests do (4 h 1 min), just after a sweep: get_job still skips it
    // (it takes only rows with locked_at null); the next sweep clears locked_at and the job runs.
    const sweeps = count('sweep');
    await until('the next sweep', () => count('sweep') > sweeps);
    await ns.sql(`UPDATE graphile_worker._private_jobs SET locked_at = now() - interval '4 hours 1 minute' WHERE id = $1`, [job.id]);
    timeline.push('backdated');
    await until("the dead worker's job to run", () => ran.includes(job.id));
    const after = timeline.slice(timeline.lastIndexOf('backdated'));
    const firstSweep = after.indexOf('sweep');
    expect(firstSweep).toBeGreaterThan(0);
    expect(after.slice(0, firstSweep)).toContain('empty'); // polled at least once with the old lock and did not take it
    expect(after.indexOf(`start ${job.id}`)).toBeGreaterThan(firstSweep);
  });

  it('graphile-worker retries a failed job exp(least(attempts, 10)) seconds later: e^1 s after the first failure, e^2 s after the second', async () => {
    ns = await namespace();
    const failedAt: number[] = [];
    const startedAt: number[] = [];
    await ns.run({
      concurrency: 1,
      taskList: {
        probe: async (_payload, helpers) => {
          startedAt.push(Date.now());
          // The database's clock, as failJob's now() reads it a moment later.
          const { rows } = await helpers.query<{ now: Date }>('SELECT now()');
          failedAt.push(rows[0]!.now.getTime());
          throw new Error(`attempt ${helpers.job.attempts} fails`);
        },
      },
    });
    const job = await ns.utils.addJob('probe', {}, { maxAttempts: 2 });
    const rowOnceFailed = async (attempts: number) => {
      let row: JobRow | undefined;
      await until(`attempt ${attempts} to fail`, async () => {
        row = (await ns!.rows())[0];
        return row?.attempts === attempts && row.locked_at === null && row.last_error !== null;
      });
      return row!;
    };

    const once = await rowOnceFailed(1);
    const firstDelay = once.run_at.getTime() - failedAt[0]!;
    expect(firstDelay).toBeGreaterThanOrEqual(Math.floor(Math.E * 1000));
    expect(firstDelay).toBeLessThan(Math.E * 1000 + 1000);

    const twice = await rowOnceFailed(2);
    const rerunAfter = startedAt[1]! - startedAt[0]!;
    expect(rerunAfter).toBeGreaterThanOrEqual(Math.floor(Math.E * 1000));
    const secondDelay = twice.run_at.getTime() - failedAt[1]!;
    expect(secondDelay).toBeGreaterThanOrEqual(Math.floor(Math.exp(2) * 1000));
    expect(secondDelay).toBeLessThan(Math.exp(2) * 1000 + 1000);
    expect(twice).toMatchObject({ id: job.id, attempts: 2, max_attempts: 2, last_error: 'attempt 2 fails' });
  });

  it('graphile-worker shuts down a running worker when another schema of the same database is migrated', async () => {
    ns = await namespace();
    const runner = await ns.run({ concurrency: 1, taskList: { probe: () => {} } });
    let stopped = false;
    void runner.promise.then(() => {
      stopped = true;
    });
    const exitCode = process.exitCode;
    try {
      // A fresh schema elsewhere in the database: its breaking migrations NOTIFY "worker:migrate" database-wide.
      await runMigrations({ connectionString: ns.url, schema: 'probe_other', logger: silent });
      await until('the runner of the other schema to shut down', () => stopped);
      expect(process.exitCode).toBe(57);
    } finally {
      process.exitCode = exitCode;
    }
  });

  it("graphile-worker's worker exits when the connection of its completeJob is cut, its runner runs on with no worker, and the job stays locked", async () => {
    ns = await namespace();
    const done = gate();
    const fatal: Array<{ code?: string }> = [];
    ns.events.on('worker:fatalError', ({ error }) => fatal.push(error as { code?: string }));
    const started = new Set<string>();
    const runner = await ns.run({
      concurrency: 1,
      taskList: {
        probe: async (_payload, helpers) => {
          started.add(helpers.job.id);
          if (started.size === 1) await done.promise;
        },
      },
    });
    const job = await ns.utils.addJob('probe', { n: 1 });
    await until('the job to run', () => started.has(job.id));
    // Hold the job's row, so that completeJob's DELETE waits on it; then end that waiting session, as a server
    // restart ends every session (57P01, which graphile's withRetries does not retry).
    const holder = new pg.Client({ connectionString: ns.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM graphile_worker._private_jobs WHERE id = $1 FOR UPDATE', [job.id]);
      done.open();
      const waiting = async () =>
        (await holder.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rows;
      await until('completeJob to wait on the row', async () => (await waiting()).length === 1);
      await holder.query('SELECT pg_terminate_backend($1)', [(await waiting())[0].pid]);
      await until("graphile's worker to give up ('committing seppuku')", () => fatal.length === 1);
    } finally {
      await holder.query('ROLLBACK').catch(() => {});
      await holder.end();
    }
    expect(fatal[0]?.code).toBe('57P01');
    // The job was done, and stays locked by the worker that ran it; the runner was not stopped.
    const [row] = await ns.rows();
    expect(row).toMatchObject({ id: job.id, attempts: 1, locked_by: expect.any(String) });
    expect(row!.locked_at).not.toBeNull();
    let settled = false;
    void runner.promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    // And nothing in this runner takes work any more (graphile's source: "TODO: handle when a worker shuts down
    // (spawn a new one)"): a job added now is not run in 20 of its poll intervals, with the runner still running.
    const next = await ns.utils.addJob('probe', { n: 2 });
    const deadline = Date.now() + 20 * 100;
    while (Date.now() < deadline) {
      expect(started.has(next.id)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await ns.rows()).find((r) => r.id === next.id)).toMatchObject({ attempts: 0, locked_at: null });
    expect(settled).toBe(false);
  });
});
