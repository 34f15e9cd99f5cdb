import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Accepted, Evidence, InvariantId } from '../../../src/judge/evidence.js';
import { checkInvariants, expectationVerdicts, INVARIANTS } from '../../../src/judge/invariants/index.js';
import { jsonLogger } from '../../../src/kernel/log.js';
import { type Plan, stepKey } from '../../../src/saga/plan.js';
import { LEASE_MS, PAST_LEASE_MS, RETRY_MS, type SagaFixture, SKEW_MS, startSaga } from '../../saga/fixture.js';
import { ALL_AVAILABLE, digestOf, jobIn, planOf, SECRET, STEPS } from './evidence-builder.js';

/*
 * Evidence from a real run: the reference SQLite queue on a temp file with a
 * ManualClock, a real world server with its ledger file, runPlan and
 * compensatePlan in process (test/saga/fixture.ts). It goes through a clean
 * run, a worker that died holding a lease (expiry, another worker's claim, the
 * dead worker's stale write refused), a transient failure and its retry, a
 * lost response reconciled, a permanent failure sent to review and requeued by
 * a person, a compensated saga and a raced enqueue. Every invariant must hold
 * on it; then single corruptions of the extracted arrays (the store's trigger
 * makes corrupting the file itself impossible) must break the right ones.
 * The evidence is read as a drill reads it (src/drill/gather-evidence.ts):
 * through the queue's adapter contract (fx.conn), in the port's words.
 */

let fx: SagaFixture;
let real: Evidence;
const ids: Record<string, string> = {};

const ALL_HOLD: readonly InvariantId[] = [];

function failing(evidence: Evidence): InvariantId[] {
  return checkInvariants(evidence)
    .filter((v) => v.status !== 'held')
    .map((v) => v.id);
}

beforeAll(async () => {
  fx = await startSaga();
  const accepted: Accepted[] = [];
  const lines: string[] = [];
  const log = jsonLogger(
    'w1',
    () => new Date(fx.clock.now()).toISOString(),
    (line) => lines.push(line),
  );

  const enqueue = async (name: string, plan: Plan, expect: Accepted['expect'], attempts = 1): Promise<string> => {
    const key = digestOf(`real ${name}`);
    let created = 0;
    let jobId = '';
    for (let i = 0; i < attempts; i++) {
      const result = await fx.conn.enqueue({ key, action: 'plan', payload: JSON.stringify({ plan }), maxAttempts: 3 });
      if (result.outcome === 'created') created++;
      jobId = result.jobId;
    }
    // One enqueue after the other, in one process: several, but never in flight at once.
    accepted.push({ key, plan, enqueueAttempts: attempts, createdCount: created, raced: false, expect });
    ids[name] = jobId;
    return jobId;
  };

  // A clean run, enqueued by two racing producers.
  await enqueue('clean', planOf(STEPS.write, STEPS.email), { status: 'done' }, 2);
  expect((await fx.runAndSettle(fx.claim('w1'))).kind).toBe('done');

  // A worker dies holding the lease; the lease expires; another worker's claim sweeps and takes it; the dead one's write is refused.
  await enqueue('died', planOf(STEPS.branch), { status: 'done' });
  const dead = fx.claim('w1');
  fx.clock.advance(PAST_LEASE_MS);
  const taken = fx.claim('w2');
  expect(taken.lease.fence).toBe(dead.lease.fence + 1);
  expect(fx.queue.complete(dead.lease, digestOf('stale')).ok).toBe(false);
  expect((await fx.runAndSettle(taken)).kind).toBe('done');

  // A transient failure, retried.
  await enqueue('retried', planOf(STEPS.email), { status: 'done' });
  await fx.arm({ match: { tool: 'send_email' }, action: { type: 'fail', status: 503 } });
  const first = fx.claim('w1');
  const outcome = await fx.runAndSettle(first);
  expect(outcome.kind).toBe('retry');
  if (outcome.kind === 'retry') log({ event: 'plan-retry', jobId: first.job.id, error: `${outcome.error} (api_key=${SECRET})` }, [SECRET]);
  fx.clock.advance(RETRY_MS);
  expect((await fx.runAndSettle(fx.claim('w2'))).kind).toBe('done');

  // A lost response of a non-idempotent call: unknown, reconciled against the world, completed.
  await enqueue('lost', planOf(STEPS.publish), { status: 'done' });
  await fx.arm({ match: { tool: 'publish_article' }, action: { type: 'drop' } });
  expect((await fx.runAndSettle(fx.claim('w1'))).kind).toBe('done');

  // A permanent failure goes to review; a person requeues it; it runs.
  await enqueue('permanent', planOf(STEPS.email), { status: 'done' });
  await fx.arm({ match: { tool: 'send_email' }, action: { type: 'fail', status: 403 } });
  expect((await fx.runAndSettle(fx.claim('w1'))).kind).toBe('review');
  expect(await fx.conn.human!.requeueFromReview(ids.permanent!, 'alice', 'the token was renewed')).toBe(true);
  expect((await fx.runAndSettle(fx.claim('w2'))).kind).toBe('done');

  // A saga: the email fails for good after the write; the coordinator undoes the write.
  await enqueue('saga', planOf({ ...STEPS.write, args: { ...STEPS.write.args, api_key: SECRET } }, STEPS.email), { status: 'compensated' });
  await fx.arm({ match: { tool: 'send_email' }, action: { type: 'fail', status: 403 } });
  expect((await fx.runAndSettle(fx.claim('w1'))).kind).toBe('compensate');
  expect((await fx.compensate('coord-1')).outcome.kind).toBe('compensated');

  const snapshot = await fx.conn.snapshot();
  real = {
    scenario: 'real-run',
    // The reference queue gives every kind of evidence.
    available: ALL_AVAILABLE,
    jobs: snapshot.jobs,
    events: snapshot.history,
    txLog: await fx.conn.saga.rows(),
    incidents: await fx.conn.saga.incidents(),
    effects: fx.effects(),
    accepted,
    timeline: [],
    // One process, one clock (the fixture's): every stamp compares as written.
    queueClock: 'server',
    clocks: [],
    leases: [],
    logs: [{ name: 'w1.log', text: lines.join('') }],
    artefacts: [],
    secrets: [SECRET],
    atRest: true,
    leaseMs: LEASE_MS,
    skewMarginMs: SKEW_MS,
    retryPolicy: { baseMs: RETRY_MS, capMs: RETRY_MS, jitterMs: 0 },
  };
});

afterAll(async () => {
  await fx?.close();
});

describe('evidence from a real run', () => {
  it('went through what the test means it to (a refused stale write, a retry, a review and a requeue, a saga)', () => {
    const kinds = real.events.map((e) => `${e.kind} ${e.from ?? '(new)'}>${e.to} ${e.actor}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'refused running>done worker',
        'transition running>retry worker',
        'transition review>pending human',
        'transition running>compensating worker',
        'transition compensating>review coordinator',
      ]),
    );
    expect(real.txLog.some((row) => row.step_id === 'publish' && row.status === 'unknown')).toBe(true);
    expect(real.logs[0]?.text).toContain('[REDACTED]');
  });

  it("reads in the port's words: text ids, explicit outcomes, and an epoch on every write", () => {
    expect(real.jobs.map((job) => job.id)).toEqual(Object.values(ids));
    expect(Object.fromEntries(real.jobs.map((job) => [job.id, job.outcome]))).toEqual({
      [ids.clean!]: 'done',
      [ids.died!]: 'done',
      [ids.retried!]: 'done',
      [ids.lost!]: 'done',
      [ids.permanent!]: 'done',
      [ids.saga!]: 'compensated',
    });
    // The dead worker's refused write shows the epoch it held; the one that took over claimed the next.
    const died = real.events.filter((e) => e.jobId === ids.died);
    expect(died.find((e) => e.kind === 'refused')).toMatchObject({ worker: 'w1', epoch: 1 });
    expect(died.filter((e) => e.kind === 'transition' && e.to === 'running').map((e) => [e.worker, e.epoch])).toEqual([
      ['w1', 1],
      ['w2', 2],
    ]);
    // A person's requeue is in the saga log, as human:NAME under the epoch of the review it ends.
    expect(real.txLog.filter((row) => row.action === 'requeue')).toEqual([
      expect.objectContaining({ job_id: ids.permanent, worker: 'human:alice', epoch: 1, attempt: 1, status: 'success' }),
    ]);
    // The coordinator compensated under an epoch of its own, above the worker's.
    const compensations = real.txLog.filter((row) => row.job_id === ids.saga && row.action === 'compensate');
    expect(compensations.length).toBeGreaterThan(0);
    expect(compensations.every((row) => row.worker === 'coord-1' && row.epoch === 2)).toBe(true);
    // Every effect in the world carries the epoch its caller showed, and names a job of the queue.
    expect(real.effects.filter((effect) => effect.epoch === null)).toEqual([]);
    expect([...new Set(real.effects.map((effect) => effect.job))].sort()).toEqual(real.jobs.map((job) => job.id).sort());
    expect(checkInvariants(real, ['single-holder'])[0]).toMatchObject({ status: 'held', evidence: [] });
    expect(checkInvariants(real, ['single-holder'])[0]!.note).toBeUndefined();
  });

  it('does not judge, on the same run, what a queue without a history could not show', () => {
    const evidence = structuredClone(real);
    evidence.available = { ...ALL_AVAILABLE, history: 'this queue keeps no per-attempt history' };
    const verdicts = checkInvariants(evidence);
    expect(verdicts.filter((v) => v.status === 'not_judged').map((v) => v.id)).toEqual(
      INVARIANTS.filter((i) => i.needs.includes('history')).map((i) => i.id),
    );
    expect(verdicts.filter((v) => v.status === 'broken')).toEqual([]);
  });

  it('keeps every invariant and meets every expectation', () => {
    const verdicts = checkInvariants(real);
    expect(verdicts.filter((v) => v.status !== 'held')).toEqual([]);
    expect(verdicts.map((v) => v.id)).toHaveLength(INVARIANTS.length);
    expect(expectationVerdicts(real)).toEqual([]);
  });

  const corruptions: Array<{ name: string; breaks: InvariantId[]; corrupt(e: Evidence): void }> = [
    {
      name: 'a done job whose effect is missing from the ledger',
      breaks: ['no-duplicate-effect', 'done-is-verified'],
      corrupt(e) {
        const key = stepKey(jobIn(e, ids.clean!).key, 'email');
        e.effects = e.effects.filter((effect) => effect.key !== key);
      },
    },
    {
      name: 'the email of a done job applied a second time, by a worker that never held it',
      breaks: ['no-duplicate-effect', 'single-holder'],
      corrupt(e) {
        const key = stepKey(jobIn(e, ids.clean!).key, 'email');
        const original = e.effects.find((effect) => effect.key === key)!;
        e.effects.push({ ...original, seq: 999, externalRef: 'em_000999', worker: 'w9', attempt: 2, pid: 9999 });
      },
    },
    {
      name: "the dead worker's refused write applied instead",
      // The real done no longer ends a lease of its writer: done-is-verified sees it too.
      breaks: ['single-holder', 'done-is-verified', 'history-complete'],
      corrupt(e) {
        const refused = e.events.find((event) => event.kind === 'refused')!;
        refused.kind = 'transition';
      },
    },
    {
      name: 'a job left running at rest',
      breaks: ['no-lost-job', 'lease-released', 'history-complete'],
      corrupt(e) {
        Object.assign(jobIn(e, ids.retried!), { status: 'running', holder: 'w2', leaseUntil: '2026-08-25T11:00:00.000Z' });
      },
    },
    {
      name: 'a job that left review by a worker, not a person',
      // A worker wrote with no lease, and the job had failed for good: claimed again without a person is a blind retry too.
      breaks: ['single-holder', 'review-routing', 'review-sticky', 'transitions-allowed'],
      corrupt(e) {
        const requeue = e.events.find((event) => event.actor === 'human')!;
        requeue.actor = 'worker';
      },
    },
    {
      name: 'an attempt the counter missed',
      breaks: ['attempts-bounded'],
      corrupt(e) {
        jobIn(e, ids.retried!).attempts = 1;
      },
    },
    {
      name: 'the secret in a log',
      breaks: ['secrets-redacted'],
      corrupt(e) {
        e.logs[0]!.text += `{"event":"oops","key":"${SECRET}"}\n`;
      },
    },
    {
      name: 'a saga said compensated whose compensation never reached the world',
      // The log says the compensations succeeded; the ledger never saw them.
      breaks: ['no-duplicate-effect', 'saga-compensation'],
      corrupt(e) {
        e.effects = e.effects.filter((effect) => effect.compensates === null);
      },
    },
    {
      name: "a zombie's effect under its old epoch, after the new holder's",
      // The world applied the dead worker's call after w2's: a stale holder's effect, and the key twice.
      breaks: ['no-duplicate-effect', 'single-holder'],
      corrupt(e) {
        const applied = e.effects.find((effect) => effect.job === ids.died && effect.compensates === null)!;
        e.effects.push({ ...applied, seq: 998, externalRef: 'br_000998', worker: 'w1', attempt: 1, epoch: 1, pid: 9998 });
      },
    },
    {
      name: 'a checkpoint under an epoch the history never claimed',
      breaks: ['single-holder'],
      corrupt(e) {
        const rows = e.txLog.filter((row) => row.job_id === ids.clean);
        rows[rows.length - 1]!.epoch = 99;
      },
    },
    {
      name: 'a saga that says compensated in its reason, but ended with outcome review',
      breaks: ['saga-compensation'],
      corrupt(e) {
        jobIn(e, ids.saga!).outcome = 'review';
      },
    },
    {
      name: 'two producers both told they created one job',
      breaks: ['dedupe-on-enqueue'],
      corrupt(e) {
        e.accepted[0]!.createdCount = 2;
      },
    },
  ];

  it.each(corruptions)('breaks the right invariants when corrupted: $name', ({ corrupt, breaks }) => {
    const evidence = structuredClone(real);
    corrupt(evidence);
    expect(failing(evidence)).toEqual(breaks);
    expect(failing(structuredClone(real))).toEqual(ALL_HOLD);
  });
});
