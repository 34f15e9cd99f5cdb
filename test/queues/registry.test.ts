import { afterEach, describe, expect, it } from 'vitest';
import { INVARIANT_IDS } from '../../src/kernel/vocabulary.js';
import { QUEUE_IMPLS, queueImpl, UnknownQueueError } from '../../src/queues/registry.js';
import { DIGEST, type StoreFixture, storeFixture } from '../adapters/fixture.js';

let fx: StoreFixture;
afterEach(() => fx?.close());

const VARIANTS = [
  'claim-no-transaction',
  'unguarded-writes',
  'unknown-retried',
  'review-on-timer',
  'attempts-not-counted',
  'enqueue-check-then-insert',
  'lease-never-expires',
  'compensation-forward',
  'failed-compensation-ok',
  'no-backoff',
  'no-jitter',
  'crash-loop',
  'exhausted-left-in-retry',
  'done-on-expiry',
  'history-gap',
  'payload-in-error',
  'payload-encoded-in-error',
  'review-without-reason',
  'complete-on-done-silently',
  'heartbeat-retakes-swept-job',
  'sweep-before-lease-end',
  // On a server: the reference on PostgreSQL with one mistake.
  'lease-trusted-after-partition',
];

/** The queues people run, drilled to show what they do. */
const OBSERVED = ['bullmq', 'pg-boss', 'graphile-worker', 'rabbitmq', 'nats-jetstream'];

describe('QUEUE_IMPLS', () => {
  it('lists the sound queues first (the reference, on SQLite and on PostgreSQL), the queues people run, then the queue sketch as written and every broken variant, each once, in kebab-case', () => {
    const names = QUEUE_IMPLS.map((q) => q.name);
    expect(names.slice(0, OBSERVED.length + 3)).toEqual(['reference', 'postgres', ...OBSERVED, 'sketch-literal']);
    expect(names.slice(OBSERVED.length + 3)).toEqual(VARIANTS);
    expect(QUEUE_IMPLS.filter((q) => q.soundness === 'sound').map((q) => q.name)).toEqual(['reference', 'postgres']);
    expect(QUEUE_IMPLS.filter((q) => q.soundness === 'observed').map((q) => q.name)).toEqual(OBSERVED);
    expect(queueImpl('sqlite').name).toBe('reference');
    expect(queueImpl('seed-literal').name).toBe('sketch-literal');
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    for (const impl of QUEUE_IMPLS) expect(impl.description.length).toBeGreaterThan(20);
  });

  // The self-test counts a variant as caught only by an invariant it declares: a declaration missing or wrong would pass a judge that is not.
  it('every broken variant declares the invariants its mistake breaks (known ones, each once); no sound queue declares any', () => {
    for (const impl of QUEUE_IMPLS) {
      const breaks = impl.breaks ?? [];
      if (impl.soundness !== 'broken') expect(breaks, `${impl.name} is ${impl.soundness}`).toEqual([]);
      else expect(breaks.length, `${impl.name} declares what it breaks`).toBeGreaterThan(0);
      for (const id of breaks) expect(INVARIANT_IDS, `${impl.name}: ${id}`).toContain(id);
      expect(new Set(breaks).size, `${impl.name} lists each invariant once`).toBe(breaks.length);
    }
  });

  it('refuses a name it does not know, listing the ones it does', () => {
    expect(() => queueImpl('no-such-queue')).toThrow(UnknownQueueError);
    expect(() => queueImpl('no-such-queue')).toThrow(
      /known: reference, postgres, bullmq, pg-boss, graphile-worker, rabbitmq, nats-jetstream, sketch-literal, claim-no-transaction/,
    );
  });

  // Each variant is one mistake in a queue that otherwise works: alone, without a fault, it does its job.
  it.each(QUEUE_IMPLS.filter((q) => q.locatorKind === 'file').map((q) => q.name))(
    '%s: one worker, no fault: enqueue (twice), claim, heartbeat, complete',
    (name) => {
      fx = storeFixture(`happy-${name}`);
      const queue = fx.open(name);
      const { jobId } = queue.enqueue({ key: 'k', action: 'charge', payload: { amount: 1 } });
      expect(queue.enqueue({ key: 'k', action: 'charge', payload: { amount: 1 } })).toEqual({ created: false, jobId });
      const claimed = fx.claimBy(queue, 'w1');
      expect(claimed.job.id).toBe(jobId);
      expect(queue.heartbeat(claimed.lease).ok).toBe(true);
      expect(queue.complete(claimed.lease, DIGEST)).toEqual({ ok: true, status: 'done' });
      expect(queue.job(jobId)).toMatchObject({ status: 'done', leased_by: null, lease_until: null, result_digest: DIGEST });
      expect(queue.claim('w1')).toBeNull();
    },
  );
});
