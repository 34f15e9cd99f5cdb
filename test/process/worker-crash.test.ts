import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteQueue } from '../../src/adapters/sqlite/sqlite-queue.js';
import { type Child, Supervisor } from '../../src/harness/supervisor.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { systemClock } from '../../src/kernel/clock.js';
import { randomInt, seededRandom } from '../../src/kernel/random.js';
import { effectLogFor, readEffects } from '../../src/worker/effect-log.js';
import { groupAlive, tempRunDir } from '../helpers/run-dir.js';

const JOBS = 40;
const KILLS = 5;
const SEED = 20261129;

describe('a worker SIGKILLed at any instant', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it(`loses no job, corrupts nothing and duplicates no effect (seed ${SEED})`, async () => {
    const run = tempRunDir('crash');
    const supervisor = new Supervisor(run.dir);
    cleanup.push(run.remove, () => supervisor.stopAll());
    const store = join(run.dir, 'queue.db');
    const observer = SqliteQueue.open(store, { clock: systemClock(), random: seededRandom(1) });
    cleanup.push(() => observer.close());
    const random = seededRandom(SEED);

    const workerArgs = (id: string) => ['worker', '--store', store, '--id', id, '--lease-ms', '400', '--skew-margin-ms', '50', '--poll-ms', '5'];
    const producer = supervisor.spawn('p1', ['producer', '--store', store, '--count', String(JOBS), '--payload', '{"ms":20}']);
    const workers: Child[] = ['w1', 'w2', 'w3'].map((id) => supervisor.spawn(id, workerArgs(id)));
    expect((await producer.exited).exitCode).toBe(0);

    const killedHolding: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      const index = randomInt(random, 0, workers.length - 1);
      const victim = workers[index]!;
      // Wait until the victim holds a job, then let a seeded moment pass so the
      // kill lands anywhere: before the effect, after it, before the complete.
      const held = await waitFor(() => observer.jobs().find((j) => j.status === 'running' && j.leased_by === victim.name), {
        timeoutMs: 20_000,
        intervalMs: 2,
        what: `${victim.name} to hold a job`,
      }).catch(() => undefined);
      if (!held) break;
      await sleep(randomInt(random, 0, 25));
      await supervisor.crash(victim);
      killedHolding.push(held.id);
      workers[index] = supervisor.spawn(victim.name, workerArgs(victim.name));
    }
    expect(killedHolding.length, 'the kills landed').toBeGreaterThan(0);

    await waitFor(() => observer.counts().done === JOBS, { timeoutMs: 30_000, what: `all ${JOBS} jobs done` });
    await supervisor.stopAll(5_000);
    for (const child of supervisor.all()) expect(groupAlive(child.pid)).toBe(false);

    expect(observer.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(observer.counts()).toEqual({ pending: 0, running: 0, retry: 0, done: JOBS, review: 0, compensating: 0 });
    const effects = readEffects(effectLogFor(store));
    const perKey = new Map<string, number>();
    for (const e of effects) perKey.set(e.key, (perKey.get(e.key) ?? 0) + 1);
    expect(
      [...perKey.values()].filter((n) => n !== 1),
      'duplicated effects',
    ).toEqual([]);
    expect(perKey.size).toBe(JOBS);
    for (const job of observer.jobs()) {
      const claims = observer.history(job.id).filter((e) => e.kind === 'transition' && e.to_status === 'running');
      expect(claims).toHaveLength(job.attempts);
    }
    // A job whose holder was killed before it completed shows the lease expiring and another claim.
    const recovered = observer.jobs().filter((j) => j.attempts > 1);
    for (const job of recovered) {
      expect(
        observer.history(job.id).some((e) => e.from_status === 'running' && e.to_status === 'retry' && /lease of w\d expired/.test(e.reason)),
      ).toBe(true);
    }
  });
});
