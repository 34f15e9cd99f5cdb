import { describe, expect, it } from 'vitest';
import { deliverySteps } from '../../../src/adapters/nats-jetstream/deliveries.js';
import { fitNatsJetstream } from '../../../src/adapters/nats-jetstream/fit.js';
import type { Delivered } from '../../../src/adapters/nats-jetstream/message.js';
import { parseAckSubject } from '../../../src/adapters/nats-jetstream/message.js';
import { streamNameFor, subjectFor } from '../../../src/adapters/nats-jetstream/names.js';
import { ackWaitOf, backoffFor } from '../../../src/adapters/nats-jetstream/options.js';
import type { JobSnapshot } from '../../../src/port/snapshot.js';
import { drillDemands } from '../../helpers/drill-demands.js';

/* The parts of the nats-jetstream adapter that need no server: its fit, its names, its reading of an ack subject, its record steps. */

describe('nats-jetstream: fit', () => {
  it('maps the lease to ack_wait and the largest budget to max_deliver, and says what the duplicate window means', () => {
    const fit = fitNatsJetstream(drillDemands({ leaseMs: 400, maxAttempts: [2, 3] }));
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    expect(fit.mapping).toMatchObject({
      ack_wait: "400 ms (the drill's lease)",
      max_deliver: "3 (the drill's largest max_attempts)",
      backoff: 'none',
    });
    expect(String(fit.mapping.duplicate_window)).toMatch(/^120000 ms: a key enqueued again after it makes a second job/);
    expect(String(fit.mapping['per-job budget'])).toMatch(/max_attempts 2, 3: a delivery past its job's budget is terminated unrun/);
    expect(fit.atLeast).toBeUndefined();
  });

  it('refuses an ack wait below what the machine keeps reliably, naming the time scale that runs it', () => {
    const fit = fitNatsJetstream(drillDemands({ leaseMs: 100 }));
    expect(fit).toMatchObject({ ok: false, reason: expect.stringMatching(/ack_wait of 100 ms is below the 200 ms .*--time-scale 2/) });
    expect(fitNatsJetstream(drillDemands({ leaseMs: 100, queueOptions: { ack_wait_ms: 500 } })).ok).toBe(true);
  });

  it('with a doubling backoff, waits at least as long as JetStream holds a dead holder’s message, and refuses max_deliver 1', () => {
    const fit = fitNatsJetstream(drillDemands({ leaseMs: 400, maxAttempts: [3], queueOptions: { backoff: 'doubling' } }));
    expect(fit).toMatchObject({ ok: true, atLeast: { noProgressMs: 800 + 2_000, timeoutMs: 20_000 + 400 + 800 + 800 } });
    expect(fitNatsJetstream(drillDemands({ maxAttempts: [1], queueOptions: { backoff: 'doubling' } }))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/max_deliver \(1\) > the number of backoff values \(1\)/),
    });
    expect(backoffFor('doubling', 400, 4)).toEqual([400, 800, 1600]);
    expect([1, 2, 3, 4, 5].map((n) => ackWaitOf(n, 999, [400, 800, 1600]))).toEqual([400, 800, 1600, 1600, 1600]);
  });

  it('refuses an option JetStream would not take', () => {
    expect(fitNatsJetstream(drillDemands({ queueOptions: { duplicate_window_ms: 0 } }))).toMatchObject({ ok: false });
  });
});

describe('nats-jetstream: names and ack subjects', () => {
  it('makes a short, readable stream name unique per run id, and its subject', () => {
    const a = streamNameFor('crash-after-claim 2026-12-01T10 123 1');
    expect(a).toMatch(/^QD_crash_after_claim_2026_12_01T10_123_1_[0-9a-f]{12}$/);
    expect(streamNameFor('Run-1')).not.toBe(streamNameFor('Run_1'));
    expect(subjectFor(a)).toBe(`qd.${a.slice(3)}.jobs`);
  });

  it('reads the delivery count and stream sequence of both ack subject forms', () => {
    expect(parseAckSubject('$JS.ACK.S.workers.3.17.20.1796434247532444513.0')).toEqual({ stream: 'S', deliveryCount: 3, streamSeq: 17 });
    expect(parseAckSubject('$JS.ACK.dom.acchash.S.workers.2.5.9.1796434247532444513.0.rnd')).toEqual({ stream: 'S', deliveryCount: 2, streamSeq: 5 });
    expect(parseAckSubject('_INBOX.abc')).toBeNull();
  });
});

const job = (over: Partial<JobSnapshot>): JobSnapshot => ({
  id: '1',
  key: 'k',
  action: 'sleep',
  payload: '{}',
  status: 'pending',
  outcome: null,
  attempts: 0,
  maxAttempts: 3,
  holder: null,
  leaseUntil: null,
  epoch: 0,
  nextRunAt: null,
  lastError: null,
  reviewReason: null,
  resultDigest: null,
  createdAt: '',
  updatedAt: '',
  ...over,
});

const delivery = (deliveryCount: number, attemptsBefore = 0): Delivered => ({
  jobId: '1',
  body: { key: 'k', action: 'sleep', payload: '{}', maxAttempts: 3 },
  streamSeq: 1,
  deliveryCount,
  attemptsBefore,
  ackSubject: `$JS.ACK.S.workers.${deliveryCount}.1.1.1.0`,
});

const shape = (steps: ReturnType<typeof deliverySteps>['steps']) => steps.map((s) => `${s.to}:${s.actor}:${s.worker ?? '-'}:${s.set?.epoch ?? ''}`);

describe('nats-jetstream: a delivery in the record', () => {
  it('takes a redelivered job from its previous holder (the queue’s own takeover) before the new claim', () => {
    const made = deliverySteps(job({ status: 'running', attempts: 1, epoch: 1, holder: 'w1' }), delivery(2), 'w2', 'L');
    expect(made.overBudget).toBe(false);
    expect(shape(made.steps)).toEqual(['retry:coordinator:-:', 'running:worker:w2:2']);
  });

  it('records deliveries JetStream counted that nobody recorded as claims of an unknown holder, so attempts stay one per claim', () => {
    const made = deliverySteps(job({}), delivery(3), 'w2', 'L');
    expect(shape(made.steps)).toEqual([
      'running:worker:-:1',
      'retry:coordinator:-:',
      'running:worker:-:2',
      'retry:coordinator:-:',
      'running:worker:w2:3',
    ]);
  });

  it('sends a delivery past the job’s budget to review from its last holder, and claims nothing', () => {
    const made = deliverySteps(job({ status: 'running', attempts: 3, epoch: 3, holder: 'w1' }), delivery(4), 'w2', 'L');
    expect(made.overBudget).toBe(true);
    expect(shape(made.steps)).toEqual(['review:coordinator:-:']);
    expect(made.steps[0]!.set?.reviewReason).toMatch(/^retries exhausted/);
  });

  it('counts a requeued job’s deliveries on from the attempts it had', () => {
    const made = deliverySteps(job({ status: 'pending', attempts: 2, epoch: 2, maxAttempts: 3 }), delivery(1, 2), 'w1', 'L');
    expect(shape(made.steps)).toEqual(['running:worker:w1:3']);
  });
});
