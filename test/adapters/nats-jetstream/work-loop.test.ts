import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../src/harness/wait-for.js';
import type { Claim, Settlement, WorkOptions, WriteResult } from '../../../src/port/delivery.js';
import { skipWithoutNats } from '../../helpers/brokers.js';
import { freshNatsQueue } from './fresh-queue.js';

/*
 * The worker's own loop on JetStream: pull, run the handler under in-progress
 * acks (the heartbeat), settle. A handler slower than the ack wait keeps its
 * message as long as it renews; the harness is told each lease's end, the
 * claim's and every renewal's; the heartbeat failpoint runs before each.
 */

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

function workOptions(workerId: string, stop: AbortSignal, extra: Partial<WorkOptions> = {}): WorkOptions & { leases: string[]; settled: string[] } {
  const leases: string[] = [];
  const settled: string[] = [];
  return {
    workerId,
    stop,
    pollMs: 10,
    exitWhenDrained: true,
    maxJobs: 0,
    maxAttemptMs: 60_000,
    onLease: (claim: Claim, leaseUntil: string, by: 'claim' | 'renewal') => leases.push(`${claim.jobId}:${by}:${leaseUntil}`),
    onSettled: (claim: Claim, settlement: Settlement, write: WriteResult | null) =>
      settled.push(`${claim.jobId}:${settlement.kind}:${write?.ok ? write.status : 'refused'}`),
    log: () => {},
    leases,
    settled,
    ...extra,
  };
}

describe.skipIf(skipWithoutNats('the nats-jetstream work loop (test/adapters/nats-jetstream)'))('nats-jetstream: the work loop', () => {
  it('keeps a message past its ack wait while the handler renews it, tells each lease, and exits once drained', async () => {
    const { queue } = await freshNatsQueue('work', cleanup, { leaseMs: 300 });
    const { jobId } = await queue.enqueue({ key: 'slow', action: 'sleep', payload: '{}', maxAttempts: 2 });
    let renewals = 0;
    const options = workOptions('w1', new AbortController().signal, {
      beforeRenewal: async () => {
        renewals++;
      },
    });
    const result = await queue.work(async () => {
      // About three ack waits (a renewal every third of one): without in-progress acks JetStream would deliver it again twice.
      // Returned between renewals: the last one sent is answered (told as a lease), the next not yet begun.
      const told = () => options.leases.filter((l) => l.includes(':renewal:')).length;
      await waitFor(() => renewals >= 9 && told() === renewals, {
        timeoutMs: 10_000,
        intervalMs: 5,
        what: 'nine renewals of the held message, each answered',
      });
      return { kind: 'done', digest: 'd'.repeat(64) };
    }, options);
    expect(result).toEqual({ processed: 1 });
    expect(renewals).toBeGreaterThanOrEqual(5);
    expect(options.settled).toEqual([`${jobId}:done:done`]);
    expect(options.leases[0]).toMatch(new RegExp(`^${jobId}:claim:`));
    expect(options.leases.filter((l) => l.includes(':renewal:')).length).toBe(renewals);
    const { jobs, history } = await queue.snapshot();
    expect(jobs[0]).toMatchObject({ status: 'done', attempts: 1 });
    expect(history.filter((e) => e.to === 'running')).toHaveLength(1);
  });

  it('leaves the message of a handler that throws to its ack wait: JetStream delivers it again, and the next attempt is recorded after a takeover', async () => {
    const { queue } = await freshNatsQueue('throws', cleanup, { leaseMs: 300 });
    const { jobId } = await queue.enqueue({ key: 'k', action: 'sleep', payload: '{}', maxAttempts: 2 });
    let calls = 0;
    const options = workOptions('w1', new AbortController().signal);
    await queue.work(async () => {
      calls++;
      if (calls === 1) throw new Error('a bug in the drill');
      return { kind: 'done', digest: 'd'.repeat(64) };
    }, options);
    expect(calls).toBe(2);
    const { history } = await queue.snapshot();
    expect(history.map((e) => `${e.from ?? '(new)'}>${e.to}:${e.actor}`)).toEqual([
      '(new)>pending:producer',
      'pending>running:worker',
      'running>retry:coordinator',
      'retry>running:worker',
      'running>done:worker',
    ]);
    expect(history[2]!.reason).toMatch(/redelivered by JetStream: the ack wait of delivery 1 \(held by w1\) passed/);
    expect(options.settled).toEqual([`${jobId}:done:done`]);
  });

  it('stops renewing an attempt past its deadline and tells the handler it lost the job', async () => {
    const { queue } = await freshNatsQueue('deadline', cleanup, { leaseMs: 300 });
    await queue.enqueue({ key: 'k', action: 'sleep', payload: '{}', maxAttempts: 1 });
    const stop = new AbortController();
    let lost = false;
    const options = workOptions('w1', stop.signal, { maxAttemptMs: 200, exitWhenDrained: false, maxJobs: 1 });
    await queue.work(async (delivery) => {
      await waitFor(() => delivery.signal.aborted, { timeoutMs: 3_000, what: 'the delivery to be given up at its deadline' });
      lost = true;
      return { kind: 'lease_lost' };
    }, options);
    expect(lost).toBe(true);
    expect(options.settled).toEqual([expect.stringMatching(/:lease_lost:refused$/)]);
  });
});
