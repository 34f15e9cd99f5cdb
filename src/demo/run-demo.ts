import { mkdirSync, readFileSync } from 'node:fs';
import { type Child, Supervisor } from '../harness/supervisor.js';
import { waitFor } from '../harness/wait-for.js';
import { systemClock } from '../kernel/clock.js';
import { seededRandom } from '../kernel/random.js';
import { connectQueue } from '../port/connect-queue.js';
import type { JobSnapshot, Transition } from '../port/snapshot.js';
import { queueImpl } from '../queues/registry.js';
import { effectLogFor, readEffects } from '../worker/effect-log.js';

export interface DemoOptions {
  dir: string;
  jobs: number;
  workers: number;
  leaseMs: number;
  seed: number;
  /** How long each job works before its effect, so the crash lands mid-job. */
  jobMs: number;
  timeoutMs: number;
}

export interface DemoResult {
  ok: boolean;
  store: string;
  counts: Record<string, number>;
  /** Jobs each producer created; together they must equal the number of keys. */
  created: Record<string, number>;
  crashed: { worker: string; pid: number; jobId: string; attempt: number; at: number } | null;
  duplicates: Array<{ key: string; times: number }>;
  history: Transition[];
  elapsedMs: number;
}

/**
 * A short look at the reference queue: two producers race to enqueue the same
 * keys, workers run them as real processes, one worker is SIGKILLed while it
 * holds a job and restarted, and the queue and the effect log then show
 * whether every job ended done, exactly once.
 */
export async function runDemo(options: DemoOptions, print: (line: string) => void): Promise<DemoResult> {
  const started = Date.now();
  mkdirSync(options.dir, { recursive: true });
  const impl = queueImpl('reference');
  // Made once up front, so the racing children never make it at once.
  const provisioned = await impl.provision({ runDir: options.dir, runId: `demo ${options.dir}`, servers: {} });
  const store = provisioned.locator;
  const effectLog = effectLogFor(store);
  const observer = await connectQueue(impl, store, { clock: systemClock(), random: seededRandom(options.seed) });
  const jobs = async () => (await observer.snapshot({ history: false })).jobs;
  const counts = async () => countByStatus(await jobs());
  const supervisor = new Supervisor(options.dir);
  const workerArgs = (id: string, n: number) => demoWorkerArgs(store, effectLog, id, options.leaseMs, options.seed + n);
  try {
    print(`queue-drill demo: ${options.jobs} jobs, ${options.workers} workers, lease ${options.leaseMs} ms, seed ${options.seed}`);
    const producers = ['p1', 'p2'].map((name) =>
      supervisor.spawn(name, ['producer', '--store', store, '--count', String(options.jobs), '--payload', JSON.stringify({ ms: options.jobMs })]),
    );
    const workers: Child[] = [];
    for (let n = 1; n <= options.workers; n++) workers.push(supervisor.spawn(`w${n}`, workerArgs(`w${n}`, n)));

    const victim = workers[0]!;
    const held = await waitFor(async () => (await jobs()).find((job) => job.status === 'running' && job.holder === victim.name), {
      timeoutMs: options.timeoutMs,
      intervalMs: 5,
      what: `${victim.name} to hold a job`,
    });
    await supervisor.crash(victim);
    const crashed = { worker: victim.name, pid: victim.pid, jobId: held.id, attempt: held.attempts, at: Date.now() };
    print(`crash: SIGKILLed ${victim.name} (pid ${victim.pid}) while it held job ${held.id} (attempt ${held.attempts})`);
    supervisor.spawn(victim.name, workerArgs(victim.name, 1));
    print(`restart: ${victim.name} started again; job ${held.id} waits for its lease to expire`);

    await Promise.all(producers.map((p) => p.exited));
    await waitFor(
      async () => {
        const c = await counts();
        return c.pending + c.retry + c.running === 0 && c.done + c.review === options.jobs;
      },
      { timeoutMs: options.timeoutMs, intervalMs: 20, what: `all ${options.jobs} jobs to end done or in review` },
    );
    await supervisor.stopAll();

    const final = await counts();
    const snapshot = await observer.snapshot();
    const created = Object.fromEntries(producers.map((p) => [p.name, producedCount(p.logFile)]));
    print(
      `producers: ${producers.map((p) => `${p.name} created ${created[p.name]}`).join(', ')} ` +
        `of the same ${options.jobs} keys; the store holds ${snapshot.jobs.length} jobs`,
    );
    const history = snapshot.history.filter((e) => e.jobId === held.id);
    const duplicates = duplicateEffects(readEffects(effectLog).map((e) => e.key));
    const elapsedMs = Date.now() - started;
    printSummary(print, { counts: final, jobs: snapshot.jobs, history, duplicates, crashed, elapsedMs, store, dir: options.dir });
    const ok = final.done === options.jobs && duplicates.length === 0 && snapshot.jobs.length === options.jobs;
    return { ok, store, counts: final, created, crashed, duplicates, history, elapsedMs };
  } finally {
    await supervisor.stopAll();
    await observer.close();
  }
}

/** How many jobs stand in each status. */
function countByStatus(all: JobSnapshot[]) {
  const count = (status: JobSnapshot['status']) => all.filter((j) => j.status === status).length;
  return {
    pending: count('pending'),
    running: count('running'),
    retry: count('retry'),
    done: count('done'),
    review: count('review'),
    compensating: count('compensating'),
  };
}

/** A demo worker: short retries, so a killed worker's job comes back within a second of its lease. */
function demoWorkerArgs(store: string, effectLog: string, id: string, leaseMs: number, seed: number): string[] {
  const retries = ['--retry-base-ms', '100', '--retry-cap-ms', '1000', '--retry-jitter-ms', '50'];
  return [
    'worker',
    '--store',
    store,
    '--id',
    id,
    '--lease-ms',
    String(leaseMs),
    '--skew-margin-ms',
    '100',
    '--seed',
    String(seed),
    '--effect-log',
    effectLog,
    ...retries,
  ];
}

function duplicateEffects(keys: string[]): Array<{ key: string; times: number }> {
  const times = new Map<string, number>();
  for (const key of keys) times.set(key, (times.get(key) ?? 0) + 1);
  return [...times].filter(([, n]) => n > 1).map(([key, n]) => ({ key, times: n }));
}

function printSummary(
  print: (line: string) => void,
  r: {
    counts: Record<string, number>;
    jobs: JobSnapshot[];
    history: Transition[];
    duplicates: Array<{ key: string; times: number }>;
    crashed: { jobId: string; at: number };
    elapsedMs: number;
    store: string;
    dir: string;
  },
): void {
  const attempts = r.jobs.reduce((sum, job) => sum + job.attempts, 0);
  print(`result: ${r.counts.done} done, ${r.counts.review} in review, ${r.counts.running} running; ${attempts} attempts for ${r.jobs.length} jobs`);
  print(
    r.duplicates.length === 0
      ? 'effects: every job applied its effect exactly once'
      : `effects: DUPLICATED ${r.duplicates.map((d) => `${d.key.slice(0, 12)} x${d.times}`).join(', ')}`,
  );
  const done = r.history.find((e) => e.to === 'done' && e.kind === 'transition');
  if (done) print(`recovery: job ${r.crashed.jobId} done ${Date.parse(done.at) - r.crashed.at} ms after the kill`);
  print(`history of job ${r.crashed.jobId}:`);
  for (const e of r.history) {
    print(
      `  ${e.at}  ${(e.from ?? '(new)').padEnd(7)} -> ${e.to.padEnd(7)} ` +
        `${e.kind === 'refused' ? 'REFUSED ' : ''}attempt ${e.attempt} ${e.worker ?? e.actor}: ${e.reason}`,
    );
  }
  print(`took ${r.elapsedMs} ms; store, effect log and process logs kept in ${r.dir}`);
}

function producedCount(logFile: string): number {
  const line = readFileSync(logFile, 'utf8')
    .split('\n')
    .find((l) => l.includes('"produced"'));
  return line ? (JSON.parse(line) as { created: number }).created : 0;
}
