import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import adapter from '../../examples/js-queue/adapter.js';
import { LockTimeoutError, withLock } from '../../examples/js-queue/lock.js';
import type { ConnectOptions, DeliveryHandler, QueueConnection, Settlement, WorkOptions } from '../../src/api/adapter.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { type Clock, ManualClock, systemClock } from '../../src/kernel/clock.js';
import { seededRandom } from '../../src/kernel/random.js';
import { defaultRelease } from '../../src/port/release.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The js-queue example adapter (examples/js-queue/), in this process and
 * across real child processes: dedupe on enqueue, a stale holder fenced off,
 * the retry policy and review, its own worker loop, a lock whose owner was
 * SIGKILLed while holding it, and producers in four processes racing on the
 * same keys.
 */

const ADAPTER_URL = new URL('../../examples/js-queue/adapter.js', import.meta.url).href;
const LOCK_URL = new URL('../../examples/js-queue/lock.js', import.meta.url).href;
const POLICY = { baseMs: 1_000, capMs: 10_000, jitterMs: 100 };
const DIGEST = 'a'.repeat(64);

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function optionsFor(clock: Clock, leaseMs = 1_000): ConnectOptions {
  return { clock, random: seededRandom(20260101), leaseMs, skewMarginMs: 50, retryDelay: POLICY };
}

/** A fresh queue in a temp run directory, connected with `options`; closed and removed after the test. */
async function freshQueue(options: ConnectOptions): Promise<{ queue: QueueConnection; locator: string }> {
  const run = tempRunDir('js-queue');
  cleanup.push(run.remove);
  const { locator } = await adapter.provision({ runDir: run.dir, runId: 'js-queue-test', servers: {} });
  const queue = await adapter.connect(locator, options);
  cleanup.push(() => queue.close());
  return { queue, locator };
}

/** A child `node` process running `script` (an ES module) with `args`; SIGKILLed after the test if still alive. */
function child(script: string, args: string[]): ResultPromise<{ reject: false }> {
  const running = execa(process.execPath, ['--input-type=module', '-e', script, ...args], { reject: false });
  cleanup.push(() => {
    running.kill('SIGKILL');
    return running;
  });
  return running;
}

const request = (key: string, maxAttempts = 3) => ({ key, action: 'noop', payload: '{}', maxAttempts });

describe('js-queue, in one process', () => {
  it('dedupes an enqueue by its idempotency key, even when the enqueues race', async () => {
    const { queue } = await freshQueue(optionsFor(new ManualClock()));
    const first = await queue.enqueue(request('k1'));
    expect(first.outcome).toBe('created');
    expect(await queue.enqueue(request('k1'))).toEqual({ outcome: 'deduplicated', jobId: first.jobId });
    const raced = await Promise.all(Array.from({ length: 10 }, () => queue.enqueue(request('k2'))));
    expect(raced.filter((r) => r.outcome === 'created')).toHaveLength(1);
    expect(new Set(raced.map((r) => r.jobId)).size).toBe(1);
    const { jobs, history } = await queue.snapshot();
    expect(jobs.map((j) => [j.key, j.status])).toEqual([
      ['k1', 'pending'],
      ['k2', 'pending'],
    ]);
    expect(history.map((t) => [t.from, t.to, t.actor])).toEqual([
      [null, 'pending', 'producer'],
      [null, 'pending', 'producer'],
    ]);
  });

  it("refuses a stale holder's writes and checkpoints once its expired lease was taken back, and records the refusals", async () => {
    const clock = new ManualClock();
    const { queue } = await freshQueue(optionsFor(clock));
    const manual = queue.manual!;
    const takeover = queue.takeover!;
    const { jobId } = await queue.enqueue(request('k'));
    const stale = (await manual.claim('w1'))!;
    expect(stale).toMatchObject({ jobId, attempt: 1, epoch: 1, holder: 'w1', token: null });
    expect(await manual.claim('w2')).toBeNull();
    const staleLog = await queue.saga.logFor(stale);
    const checkpoint = { stepId: 'write', action: 'execute', key: 'k:write', status: 'started' } as const;
    expect(await staleLog.append(checkpoint)).toBe(true);

    await takeover.expireLease(jobId);
    const expired = await takeover.expiredLeases();
    expect(expired).toMatchObject([{ jobId, epoch: 1, holder: 'w1' }]);
    const reconciled = { ...checkpoint, action: 'reconcile', status: 'not_executed' } as const;
    const release = defaultRelease({ attempts: 1, max_attempts: 3, leased_by: 'w1', lease_until: null });
    expect(await takeover.releaseExpired(expired[0]!, release, 'c1', reconciled)).toBe(true);
    // Released once: the same expired lease cannot be released again, nor its checkpoint written twice.
    expect(await takeover.releaseExpired(expired[0]!, { to: 'retry', reason: 'again' }, 'c1', reconciled)).toBe(false);
    // Taken back, the stale holder can no longer checkpoint, though no later holder has opened the log yet.
    expect(await staleLog.append({ ...checkpoint, status: 'success' })).toBe(false);
    expect((await queue.saga.rows(jobId)).map((r) => [r.action, r.status, r.worker, r.epoch])).toEqual([
      ['execute', 'started', 'w1', 1],
      ['reconcile', 'not_executed', 'c1', 1],
    ]);
    const current = (await manual.claim('w2'))!;
    expect(current).toMatchObject({ jobId, attempt: 2, epoch: 2, holder: 'w2' });

    const complete = await manual.complete(stale, DIGEST);
    expect(complete.ok).toBe(false);
    expect((await manual.heartbeat(stale)).ok).toBe(false);
    let { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({ status: 'running', holder: 'w2', epoch: 2, resultDigest: null });
    expect(history.filter((t) => t.kind === 'refused')).toMatchObject([
      { jobId, to: 'done', epoch: 1, worker: 'w1', actor: 'worker', attempt: 2 },
      { jobId, to: 'running', epoch: 1, worker: 'w1', actor: 'worker' },
    ]);

    expect(await manual.complete(current, DIGEST)).toEqual({ ok: true, status: 'done' });
    ({ jobs, history } = await queue.snapshot());
    expect(jobs[0]).toMatchObject({ status: 'done', outcome: 'done', holder: null, leaseUntil: null, resultDigest: DIGEST });
    expect(history.filter((t) => t.kind === 'transition').map((t) => `${t.from}>${t.to}:${t.actor}:${t.epoch}`)).toEqual([
      'null>pending:producer:0',
      'pending>running:worker:1',
      'running>retry:coordinator:1',
      'retry>running:worker:2',
      'running>done:worker:2',
    ]);
    expect(history.map((t) => t.seq)).toEqual(history.map((_, i) => i + 1));
  });

  it('refuses a renewal once the lease ran out past the skew margin, and every claim takes expired leases back', async () => {
    const clock = new ManualClock();
    const { queue } = await freshQueue(optionsFor(clock));
    await queue.enqueue(request('k'));
    const claim = (await queue.manual!.claim('w1'))!;
    clock.advance(1_000 + 50); // The lease's end plus the margin: not yet expired.
    expect(await queue.manual!.heartbeat(claim)).toEqual({ ok: true, status: 'running' });
    clock.advance(1_000 + 51);
    expect((await queue.manual!.heartbeat(claim)).ok).toBe(false);
    // No coordinator: the next claim sweeps the expired lease (to retry, recorded as w2's) and takes the job.
    expect(await queue.manual!.claim('w2')).toMatchObject({ attempt: 2, epoch: 2, holder: 'w2' });
    const { history } = await queue.snapshot();
    expect(history.slice(-3).map((t) => `${t.kind}:${t.from}>${t.to}:${t.worker}`)).toEqual([
      'refused:running>running:w1',
      'transition:running>retry:w2',
      'transition:retry>running:w2',
    ]);
  });

  it('schedules each retry by the policy, recording its delay, and sends the last failed attempt to review, left only by a person', async () => {
    const clock = new ManualClock();
    const { queue } = await freshQueue(optionsFor(clock));
    const manual = queue.manual!;
    const { jobId } = await queue.enqueue(request('k', 3));
    for (const attempt of [1, 2]) {
      const claim = (await manual.claim('w1'))!;
      expect(claim.attempt).toBe(attempt);
      expect(await manual.retry(claim, 'HTTP 503')).toEqual({ ok: true, status: 'retry' });
      const { jobs, history } = await queue.snapshot();
      const release = history.at(-1)!;
      const min = POLICY.baseMs * 2 ** (attempt - 1);
      expect(release).toMatchObject({ from: 'running', to: 'retry', attempt });
      expect(release.retryDelayMs).toBeGreaterThanOrEqual(min);
      expect(release.retryDelayMs).toBeLessThanOrEqual(min + POLICY.jitterMs);
      expect(Date.parse(jobs[0]!.nextRunAt!)).toBe(clock.now() + release.retryDelayMs!);
      expect(jobs[0]).toMatchObject({ holder: null, leaseUntil: null, lastError: 'HTTP 503' });
      clock.advance(release.retryDelayMs! - 1);
      expect(await manual.claim('w1')).toBeNull(); // Not due yet.
      clock.advance(1);
    }
    const last = (await manual.claim('w1'))!;
    expect(last.attempt).toBe(3);
    expect(await manual.retry(last, 'HTTP 503')).toEqual({ ok: true, status: 'review' });
    let { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({ status: 'review', outcome: 'review', reviewReason: 'retries exhausted (3 of 3): HTTP 503' });
    expect(history.at(-1)).toMatchObject({ to: 'review', attempt: 3 });
    expect(history.at(-1)?.retryDelayMs).toBeUndefined();

    clock.advance(3_600_000);
    expect(await manual.claim('w1')).toBeNull();
    expect(await queue.human!.requeueFromReview(jobId, 'ops', 'the service is back')).toBe(true);
    expect(await queue.human!.requeueFromReview(jobId, 'ops', 'twice')).toBe(false);
    ({ jobs, history } = await queue.snapshot());
    expect(jobs[0]).toMatchObject({ status: 'pending', maxAttempts: 4, outcome: null, reviewReason: null });
    expect(history.at(-1)).toMatchObject({ from: 'review', to: 'pending', actor: 'human', worker: null });
    expect(await queue.saga.rows(jobId)).toMatchObject([{ action: 'requeue', worker: 'human:ops', detail: 'the service is back' }]);
    expect(await manual.claim('w1')).toMatchObject({ attempt: 4, epoch: 4 });
  });

  it('runs its own loop: renews a slow handler, goes on after one that throws, aborts a delivery whose renewal is refused', async () => {
    const { queue } = await freshQueue(optionsFor(systemClock(), 300));
    for (const key of ['slow', 'throws', 'fast']) await queue.enqueue(request(key));
    const leases: string[] = [];
    const settled: Array<[string, Settlement['kind'], boolean | null]> = [];
    const logged: string[] = [];
    let thrown = 0;
    const handler: DeliveryHandler = async (delivery) => {
      // Slow: held until the loop has renewed its lease twice (a 300 ms lease, renewed every 100 ms).
      if (delivery.key === 'slow')
        await waitFor(() => leases.filter((l) => l === 'slow:renewal').length >= 2, { timeoutMs: 5_000, what: 'two renewals of the slow job' });
      if (delivery.key === 'throws' && thrown++ === 0) throw new Error('a bug in the handler');
      return { kind: 'done', digest: DIGEST };
    };
    const stop = new AbortController();
    const options: WorkOptions = {
      workerId: 'w1',
      stop: stop.signal,
      pollMs: 20,
      exitWhenDrained: true,
      maxJobs: 0,
      maxAttemptMs: 10_000,
      onLease: (claim, _until, by) => leases.push(`${claim.key}:${by}`),
      onSettled: (claim, settlement, write) => settled.push([claim.key, settlement.kind, write?.ok ?? null]),
      log: (line) => logged.push(line.event),
    };
    // The thrown job's lease must run out before it is claimed again: drained only then.
    expect(await queue.work(handler, options)).toEqual({ processed: 4 });
    expect(leases.filter((l) => l === 'slow:renewal').length).toBeGreaterThanOrEqual(2);
    expect(settled).toEqual([
      ['slow', 'done', true],
      ['fast', 'done', true],
      ['throws', 'done', true],
    ]);
    expect(logged).toContain('job-crashed');
    const { jobs, history } = await queue.snapshot();
    expect(jobs.map((j) => j.status)).toEqual(['done', 'done', 'done']);
    expect(history.filter((t) => t.kind === 'refused')).toEqual([]);

    // A delivery whose lease is taken back meanwhile: its next renewal is refused and its signal aborted.
    const { jobId } = await queue.enqueue(request('taken'));
    const lost: DeliveryHandler = async (delivery) => {
      await queue.takeover!.expireLease(jobId);
      const [expired] = await queue.takeover!.expiredLeases();
      await queue.takeover!.releaseExpired(expired!, { to: 'retry', reason: 'taken back' }, 'c1');
      await queue.manual!.claim('w2');
      await waitFor(() => delivery.signal.aborted, { timeoutMs: 5_000, what: 'the delivery signal to abort' });
      return { kind: 'lease_lost' };
    };
    expect(await queue.work(lost, { ...options, maxJobs: 1, exitWhenDrained: false })).toEqual({ processed: 1 });
    expect(settled.at(-1)).toEqual(['taken', 'lease_lost', null]);
    expect(logged).toContain('lease-lost');
    expect((await queue.snapshot()).history.at(-1)).toMatchObject({ kind: 'refused', jobId, worker: 'w1', epoch: 1 });
  });
});

describe('js-queue, across processes', () => {
  it('breaks the lock of an owner SIGKILLed while holding it, and not before', async () => {
    const { queue, locator } = await freshQueue(optionsFor(systemClock()));
    await queue.enqueue(request('before'));
    const lockPath = `${locator}.lock`;
    // The child takes the lock and blocks inside it for ever, as a process stuck mid-write would.
    const holder = child(
      `const { withLock } = await import(${JSON.stringify(LOCK_URL)});
       await withLock(process.argv[1], () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0));`,
      [lockPath],
    );
    await waitFor(() => existsSync(`${lockPath}/owner`) && JSON.parse(readFileSync(`${lockPath}/owner`, 'utf8')).pid === holder.pid, {
      timeoutMs: 10_000,
      what: 'the child to hold the lock',
    });
    // Alive, it keeps the lock: a short wait for it fails, saying who holds it.
    await expect(withLock(lockPath, () => 'taken', 200)).rejects.toThrow(LockTimeoutError);
    await expect(withLock(lockPath, () => 'taken', 200)).rejects.toThrow(`pid ${holder.pid} holds it and is alive`);

    holder.kill('SIGKILL');
    expect((await holder).signal).toBe('SIGKILL');
    expect(await queue.enqueue(request('after'))).toMatchObject({ outcome: 'created' });
    expect((await queue.snapshot()).jobs.map((j) => j.key)).toEqual(['before', 'after']);
    expect(existsSync(lockPath)).toBe(false);
  });

  it.each([
    ['breaks a lock with no owner file once it is old', 3_000, 'taken'],
    ['waits for a lock with no owner file while it is young (its owner may be writing it)', 0, LockTimeoutError],
  ])('%s', async (_name, ageMs, expected) => {
    const run = tempRunDir('js-queue-lock');
    cleanup.push(run.remove);
    const lockPath = join(run.dir, 'q.lock');
    mkdirSync(lockPath);
    const then = new Date(Date.now() - ageMs);
    utimesSync(lockPath, then, then);
    const taking = withLock(lockPath, () => 'taken', 300);
    if (expected === LockTimeoutError) await expect(taking).rejects.toThrow(LockTimeoutError);
    else expect(await taking).toBe(expected);
  });

  it('makes exactly one job per key when four processes enqueue the same 20 keys at once', async () => {
    const { queue, locator } = await freshQueue(optionsFor(systemClock()));
    const go = `${locator}.go`;
    // Each child connects, says it is ready, waits for the go, then enqueues all 20 keys at once, from its own offset.
    const script = `
      import { existsSync, writeFileSync } from 'node:fs';
      import { setTimeout as sleep } from 'node:timers/promises';
      const [locator, go, n] = process.argv.slice(1);
      const { default: adapter } = await import(${JSON.stringify(ADAPTER_URL)});
      const queue = await adapter.connect(locator, {
        clock: { now: () => Date.now() }, random: { next: Math.random }, leaseMs: 1000, skewMarginMs: 50,
        retryDelay: { baseMs: 1000, capMs: 10000, jitterMs: 100 },
      });
      writeFileSync(go + '.ready-' + n, '');
      while (!existsSync(go)) await sleep(5);
      const keys = Array.from({ length: 20 }, (_, i) => 'key-' + ((i + 5 * Number(n)) % 20));
      const results = await Promise.all(keys.map((key) => queue.enqueue({ key, action: 'noop', payload: '{}', maxAttempts: 3 })));
      await queue.close();
      process.stdout.write(JSON.stringify(keys.map((key, i) => ({ key, ...results[i] }))));`;
    const producers = [0, 1, 2, 3].map((n) => child(script, [locator, go, String(n)]));
    await waitFor(() => [0, 1, 2, 3].every((n) => existsSync(`${go}.ready-${n}`)), { timeoutMs: 20_000, what: 'four producers to be ready' });
    writeFileSync(go, '');
    const answers = (await Promise.all(producers)).map((result) => {
      expect(result.exitCode, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Array<{ key: string; outcome: string; jobId: string }>;
    });

    const { jobs, history } = await queue.snapshot();
    expect(jobs).toHaveLength(20);
    expect(new Set(jobs.map((j) => j.key)).size).toBe(20);
    expect(history.filter((t) => t.from === null)).toHaveLength(20);
    for (const job of jobs) {
      const told = answers.flat().filter((a) => a.key === job.key);
      expect(told.map((a) => a.jobId)).toEqual([job.id, job.id, job.id, job.id]);
      expect(told.filter((a) => a.outcome === 'created')).toHaveLength(1);
    }
  });
});
