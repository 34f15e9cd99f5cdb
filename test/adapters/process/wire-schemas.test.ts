import { describe, expect, it } from 'vitest';
import { txEntryWire } from '../../../src/adapters/process/child-saga.js';
import { demandsOnTheWire } from '../../../src/adapters/process/fit.js';
import { OPTIONAL_PARTS, REQUIRED_OPS, REQUIRED_OPS_2 } from '../../../src/adapters/process/hello.js';
import { settlementWire } from '../../../src/adapters/process/settlement-wire.js';
import { deliverProblems, okBodyProblems, pathText, problemsOf } from '../../../src/adapters/process/wire-problems.js';
import {
  AnswerSchema,
  DeliverEventSchema,
  okAnswerOf,
  RequestSchema,
  WIRE_OPS,
  type WireOpName,
} from '../../../src/adapters/process/wire-schemas.js';
import { CHECK_SETTINGS } from '../../../src/contract/protocol/check-context.js';
import type { Settlement } from '../../../src/port/delivery.js';

/*
 * The protocol's messages as schemas: a good message of every kind passes, and
 * a wrong one fails naming the field's path and what was wrong (the line
 * protocol-check prints). The good ones are what the Python example sends.
 */

const AT = '2026-12-01T10:00:00.000Z';
const DIGEST = 'a'.repeat(64);
const CLAIM = {
  job_id: '12',
  key: 'k-1',
  action: 'plan',
  payload: '{"plan":"refund"}',
  attempt: 2,
  max_attempts: 3,
  epoch: 5,
  holder: 'w1',
  token: null,
  lease_until: '2026-12-01T10:00:00.400Z',
};
const JOB = {
  id: '12',
  key: 'k-1',
  action: 'plan',
  payload: '{}',
  status: 'done',
  outcome: 'done',
  attempts: 1,
  max_attempts: 3,
  holder: null,
  lease_until: null,
  epoch: 1,
  next_run_at: AT,
  last_error: null,
  review_reason: null,
  result_digest: DIGEST,
  created_at: AT,
  updated_at: AT,
};
const TRANSITION = {
  seq: 1,
  job_id: '12',
  kind: 'transition',
  from: null,
  to: 'pending',
  attempt: 0,
  epoch: 0,
  worker: null,
  actor: 'producer',
  reason: 'enqueued',
  at: AT,
};
const ENTRY = { step_id: 'write', action: 'execute', key: 'k-1:write', status: 'started' };
const TX_ROW = {
  id: 1,
  job_id: '12',
  step_id: 'write',
  action: 'execute',
  idempotency_key: 'k-1:write',
  status: 'started',
  external_reference: null,
  compensation_status: null,
  attempt: 1,
  epoch: 5,
  worker: 'w1',
  detail: null,
  error_kind: null,
  at: AT,
};
const EVIDENCE = { history: true, refusals: true, epoch: true, holder: true, digest: true, review: true, 'retry-policy': 'no delays kept' };
const HELLO = {
  name: 'python-sqlite-queue',
  version: '1.0.0',
  protocol: 2,
  description: 'a queue',
  capabilities: { evidence: EVIDENCE, fencing: true, takeover: 'coordinator', clock: 'caller', saga_store: 'in-queue' },
  ops: [...REQUIRED_OPS, ...REQUIRED_OPS_2],
  locator_kind: 'name',
  needs: ['pg_url'],
  limits: { min_lease_ms: 50, max_attempts: 1000 },
};
const LEASE = { job_id: '12', holder: 'w1', epoch: 5 };
const SERVERS = { pg_url: 'postgres://localhost/x' };
const DEMANDS = demandsOnTheWire({
  leaseMs: 400,
  skewMarginMs: 100,
  pollMs: 20,
  maxAttempts: [3],
  retryDelay: { baseMs: 100, capMs: 1_000, jitterMs: 10 },
  coordinator: true,
  approval: false,
  tools: ['payments'],
  points: ['after_claim'],
  holderDies: true,
  queueOptions: {},
  timeoutMs: 30_000,
});

/** A good request (its fields) and a good ok body of every op: the compiler makes the table name every op. */
const GOOD: Record<WireOpName, { fields: Record<string, unknown>; ok: Record<string, unknown> }> = {
  hello: { fields: { protocol: 2 }, ok: HELLO },
  provision: { fields: { run_dir: '/tmp/run', run_id: 'r1', servers: {} }, ok: { locator: '/tmp/run/queue.db', where: '/tmp/run/queue.db' } },
  open: { fields: { store: '/tmp/run/queue.db', servers: {}, ...CHECK_SETTINGS }, ok: {} },
  enqueue: { fields: { key: 'k-1', action: 'plan', payload: '{}', max_attempts: 3 }, ok: { outcome: 'created', job_id: '12' } },
  work: { fields: { worker_id: 'w1', poll_ms: 20, max_jobs: 0, exit_when_drained: false }, ok: { processed: 1 } },
  stop_work: { fields: {}, ok: {} },
  settle: { fields: { ...LEASE, settlement: { kind: 'done', digest: DIGEST } }, ok: { status: 'done' } },
  heartbeat: { fields: LEASE, ok: { lease_until: AT } },
  snapshot: {
    fields: { history: true },
    ok: { jobs: [JOB], history: [TRANSITION, { ...TRANSITION, seq: 2, retry_delay_ms: 100 }, { ...TRANSITION, seq: 3, retry_delay_ms: null }] },
  },
  progress: { fields: {}, ok: { progress: '3:0' } },
  claim: { fields: { worker_id: 'w1' }, ok: { claim: CLAIM } },
  expire_lease: { fields: { job_id: '12' }, ok: {} },
  expired_leases: { fields: {}, ok: { claims: [CLAIM] } },
  release_expired: {
    fields: { job_id: '12', epoch: 5, attempt: 2, to: 'retry', reason: 'its holder died', by: 'c1', checkpoint: ENTRY },
    ok: { released: true },
  },
  maintain: { fields: {}, ok: { moved: 0 } },
  claim_compensation: { fields: { coordinator_id: 'c1' }, ok: { claim: null } },
  finish_compensation: { fields: { ...LEASE, outcome: 'compensated', reason: 'undone' }, ok: { status: 'review' } },
  requeue_from_review: { fields: { job_id: '12', by: 'alice', note: 'checked' }, ok: { requeued: false } },
  append_tx: { fields: { ...LEASE, entry: ENTRY }, ok: { appended: true } },
  read_tx: { fields: {}, ok: { rows: [TX_ROW] } },
  record_incident: { fields: { job_id: '12', step_id: 'write', error: 'compensation failed' }, ok: {} },
  incidents: { fields: { job_id: '12' }, ok: { incidents: [{ id: 1, job_id: '12', step_id: 'write', error: 'x', status: 'open', at: AT }] } },
  teardown: { fields: { store: '/tmp/run/queue.db', keep: false, servers: SERVERS }, ok: {} },
  fit: { fields: { demands: DEMANDS, servers: SERVERS }, ok: { ok: true, mapping: { lease_ms: 400, wal: true, store: 'SQLite' } } },
};

const request = (op: string, fields: Record<string, unknown>) => ({ id: 7, op, now: 1_764_583_200_000, ...fields });

describe('the ops', () => {
  it('are every op the adapter names (required, protocol 2, each optional part), each once', () => {
    const named = [...REQUIRED_OPS, ...REQUIRED_OPS_2, ...Object.values(OPTIONAL_PARTS).flat()];
    expect(new Set(named)).toEqual(new Set(Object.keys(WIRE_OPS)));
  });
});

describe('a good message of each kind passes', () => {
  it.each(Object.entries(GOOD))('%s: its request and its ok body', (op, { fields, ok }) => {
    const name = op as WireOpName;
    expect(problemsOf(WIRE_OPS[name].request, request(op, fields), op)).toEqual([]);
    expect(problemsOf(RequestSchema, request(op, fields), 'request')).toEqual([]);
    expect(okBodyProblems(op, ok)).toEqual([]);
    expect(problemsOf(okAnswerOf(name), { re: 7, type: 'ok', body: ok }, 'answer')).toEqual([]);
  });

  it('fail and info answers, re null too', () => {
    for (const answer of [
      { re: 7, type: 'fail', code: 'lease_lost', message: 'epoch 4 is not the lease' },
      { re: null, type: 'fail', code: 'bad_request', message: 'not a JSON line' },
      { re: 7, type: 'info', code: 'store_error', message: 'the commit did not answer' },
      { re: 7, type: 'ok', body: {} },
    ])
      expect(problemsOf(AnswerSchema, answer, 'answer')).toEqual([]);
  });

  it('the deliver event, with fields the protocol does not name', () => {
    expect(deliverProblems({ event: 'deliver', delivery: { ...CLAIM, queue_own: 1 }, extra: true })).toEqual([]);
  });

  it("the drill's own requests: every settlement, a checkpoint, the demands", () => {
    const settlements: Settlement[] = [
      { kind: 'done', digest: DIGEST },
      { kind: 'retry', error: 'transient' },
      { kind: 'review', reason: 'look', awaitingApproval: true },
      { kind: 'compensate', reason: 'failed for good', error: 'permanent' },
      { kind: 'lease_lost' },
    ];
    for (const settlement of settlements)
      expect(problemsOf(WIRE_OPS.settle.request, request('settle', { ...LEASE, settlement: settlementWire(settlement) }), 'settle')).toEqual([]);
    const entry = txEntryWire({ stepId: 'write', action: 'execute', key: 'k', status: 'success', detail: 'ok' });
    expect(problemsOf(WIRE_OPS.append_tx.request, request('append_tx', { ...LEASE, entry }), 'append_tx')).toEqual([]);
  });
});

describe('a wrong message fails, naming the path and what was wrong', () => {
  const jobWith = (fields: Record<string, unknown>) => ({ jobs: [JOB, { ...JOB, ...fields }], history: [] });
  const wrong: Array<[op: string, body: unknown, problem: RegExp]> = [
    [
      'snapshot',
      jobWith({ status: 'finished' }),
      /^snapshot\.jobs\[1\]\.status: expected one of pending, running, retry, done, review, compensating, got "finished"$/,
    ],
    ['snapshot', jobWith({ outcome: 'ok' }), /^snapshot\.jobs\[1\]\.outcome: expected one of done, review, awaiting_approval, .*got "ok"$/],
    [
      'snapshot',
      jobWith({ created_at: '2026-12-01 10:00:00' }),
      /^snapshot\.jobs\[1\]\.created_at: expected a fixed-width UTC time .*got "2026-12-01 10:00:00"$/,
    ],
    ['snapshot', jobWith({ result_digest: 'ABC' }), /^snapshot\.jobs\[1\]\.result_digest: expected a digest \(64 lowercase hex\), got "ABC"$/],
    ['snapshot', jobWith({ epoch: -1 }), /^snapshot\.jobs\[1\]\.epoch: expected a number 0 or more, got -1$/],
    [
      'snapshot',
      { jobs: [], history: [{ ...TRANSITION, actor: 'robot' }] },
      /^snapshot\.history\[0\]\.actor: expected one of producer, worker, coordinator, human, got "robot"$/,
    ],
    ['enqueue', { outcome: 'created', job_id: 12 }, /^enqueue\.job_id: expected text, got 12$/],
    ['enqueue', { job_id: '12' }, /^enqueue\.outcome: missing \(expected one of created, deduplicated\)$/],
    ['heartbeat', { lease_until: 1_764_583_200_000 }, /^heartbeat\.lease_until: expected text or null, got 1764583200000$/],
    ['settle', { status: 'finished' }, /^settle\.status: expected one of pending, .*compensating or null, got "finished"$/],
    ['claim', { claim: { ...CLAIM, epoch: 1.5 } }, /^claim\.claim\.epoch: expected a whole number, got 1\.5$/],
    ['claim', { claim: 'none' }, /^claim\.claim: expected an object or null, got "none"$/],
    ['work', { processed: '1' }, /^work\.processed: expected a number, got "1"$/],
    ['fit', { ok: 'yes' }, /^fit\.ok: expected one of true, false, got "yes"$/],
    ['fit', { ok: false }, /^fit\.reason: missing \(expected text\)$/],
    ['fit', { ok: true, mapping: { nested: {} } }, /^fit\.mapping\.nested: expected text or a number or true or false, got \{\}$/],
    ['hello', { ...HELLO, protocol: 3 }, /^hello\.protocol: expected one of 1, 2, got 3$/],
    ['hello', { ...HELLO, locator_kind: 'url' }, /^hello\.locator_kind: expected one of file, name, got "url"$/],
    ['hello', { ...HELLO, needs: ['mysql_url'] }, /^hello\.needs\[0\]: expected one of pg_url, redis_url, got "mysql_url"$/],
    [
      'hello',
      { ...HELLO, capabilities: { ...HELLO.capabilities, evidence: { ...EVIDENCE, review: false } } },
      /^hello\.capabilities\.evidence\.review: expected true or text, got false$/,
    ],
    [
      'hello',
      { ...HELLO, capabilities: { ...HELLO.capabilities, clock: 'wall' } },
      /^hello\.capabilities\.clock: expected one of caller, server, got "wall"$/,
    ],
    ['read_tx', { rows: [{ ...TX_ROW, action: 'call' }] }, /^read_tx\.rows\[0\]\.action: expected one of execute, reconcile, .*got "call"$/],
  ];
  it.each(wrong.map(([op, body, problem]) => ({ op, body, problem })))('$op: $problem', ({ op, body, problem }) => {
    const problems = okBodyProblems(op, body);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('a deliver event, naming the claim field', () => {
    expect(deliverProblems({ event: 'deliver', delivery: { ...CLAIM, lease_until: 'soon' } })).toEqual([
      'deliver.delivery.lease_until: expected a fixed-width UTC time (YYYY-MM-DDTHH:MM:SS.mmmZ), got "soon"',
    ]);
    expect(deliverProblems({ event: 'deliver', claim: CLAIM })).toEqual(['deliver.delivery: missing (expected an object)']);
  });

  it('a request, naming the field (the drill holds its own requests to the same schemas in these tests)', () => {
    const bad = request('settle', { ...LEASE, settlement: { kind: 'done', digest: 'not-a-digest' } });
    expect(problemsOf(RequestSchema, bad, 'settle')).toEqual(['settle.settlement.digest: expected a digest (64 lowercase hex), got "not-a-digest"']);
    expect(problemsOf(RequestSchema, request('no_such_op', {}), 'request')).toEqual([
      expect.stringMatching(/^request\.op: expected one of hello, provision, .*, fit, got "no_such_op"$/),
    ]);
  });

  it('a fail answer without a code', () => {
    expect(problemsOf(AnswerSchema, { re: 7, type: 'fail', message: 'no' }, 'answer')).toEqual(['answer.code: missing (expected text)']);
  });

  it('says at most three problems, and how many more', () => {
    const problems = okBodyProblems('claim', { claim: {} });
    expect(problems).toHaveLength(4);
    expect(problems[3]).toBe('and 7 more');
  });

  it('has no schema for an op the protocol does not know (the check of unknown ops is its own step)', () => {
    expect(okBodyProblems('no_such_op', { anything: 1 })).toEqual([]);
    expect(DeliverEventSchema.safeParse({ event: 'deliver', delivery: CLAIM }).success).toBe(true);
  });

  it('spells a path as a message does', () => {
    expect(pathText(['jobs', 0, 'status'])).toBe('.jobs[0].status');
    expect(pathText(['evidence', 'retry-policy'])).toBe('.evidence.retry-policy');
    expect(pathText(['mapping', 'a b'])).toBe('.mapping["a b"]');
  });
});
