import * as z from 'zod';
import { ACTORS, EVIDENCE_KINDS, JOB_OUTCOMES, JOB_STATUSES } from '../../kernel/vocabulary.js';
import { TX_ACTIONS, TX_STATUSES } from '../../port/checkpoint.js';
import { SERVER_NEEDS } from './hello.js';
import { PROTOCOL_VERSIONS } from './protocol.js';

/*
 * Every message of the process protocol (docs/protocol.md) as a zod schema:
 * each op's request and its `ok` body (one entry an op in WIRE_OPS, the one
 * place the ops are listed), the `fail` and `info` answers, and the `deliver`
 * event. Loose where the protocol is (a message may carry fields it does not
 * name: looseObject everywhere), exact where it is (types, the judge's states,
 * outcomes and actors, fixed-width UTC times, 64-hex digests).
 * protocol.schema.json is generated from these (protocol-json-schema.ts), and
 * protocol-check holds every answer and delivery of a child to them before its
 * own checks, so the file, the check and the drill cannot tell a child three
 * different things. Every named schema is registered in WIRE_REGISTRY under
 * the name the JSON Schema gives it.
 */

/** The named schemas, by the id each has in protocol.schema.json's definitions. */
export const WIRE_REGISTRY = z.registry<{ id: string; description: string }>();

function named<T extends z.ZodType>(id: string, description: string, schema: T): T {
  WIRE_REGISTRY.add(schema, { id, description });
  return schema;
}

/** A time on the wire: fixed-width UTC text, so that comparing the text compares the times. */
export const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const Utc = named(
  'utc',
  'A time: fixed-width UTC text, 2026-12-01T10:00:00.000Z (comparing the text compares the times).',
  z.string().regex(UTC_TIME, { error: 'a fixed-width UTC time (YYYY-MM-DDTHH:MM:SS.mmmZ)' }),
);
const Digest = named(
  'digest',
  "A verified result's SHA-256 digest: 64 lowercase hex.",
  z.string().regex(/^[0-9a-f]{64}$/, { error: 'a digest (64 lowercase hex)' }),
);
const Text = z.string();
const Count = z.int().min(0);
const Flag = z.boolean();
const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()]);

const Status = named('status', "A job's state, in the judge's words: map the queue's own onto these.", z.enum(JOB_STATUSES));
const Outcome = named('outcome', 'How a job ended, once it is done or in review.', z.enum(JOB_OUTCOMES));

const Claim = named(
  'claim',
  'A job handed to a holder (deliver, claim, expired_leases, claim_compensation). `epoch` grows with every claim of the job (the fencing ' +
    "token); `attempt` counts claims that used up an attempt; `token` is the queue's own proof of holding, or null.",
  z.looseObject({
    job_id: Text,
    key: Text,
    action: Text,
    payload: Text,
    attempt: Count,
    max_attempts: Count,
    epoch: Count,
    holder: Text,
    token: orNull(Text),
    lease_until: orNull(Utc),
  }),
);

const Job = named(
  'job',
  "One job in a snapshot: src/port/snapshot.ts's JobSnapshot in snake_case.",
  z.looseObject({
    id: Text,
    key: Text,
    action: Text,
    payload: Text,
    status: Status,
    outcome: orNull(Outcome),
    attempts: Count,
    max_attempts: Count,
    holder: orNull(Text),
    lease_until: orNull(Utc),
    epoch: Count,
    next_run_at: orNull(Utc),
    last_error: orNull(Text),
    review_reason: orNull(Text),
    result_digest: orNull(Digest),
    created_at: Utc,
    updated_at: Utc,
  }),
);

const Transition = named(
  'transition',
  "One history entry in a snapshot: a state change, or a stale holder's write refused (src/port/snapshot.ts's Transition in snake_case).",
  z.looseObject({
    seq: Count,
    job_id: Text,
    kind: z.enum(['transition', 'refused']),
    from: orNull(Status),
    to: Status,
    attempt: Count,
    epoch: Count,
    worker: orNull(Text),
    actor: z.enum(ACTORS),
    reason: Text,
    at: Utc,
    // On a release to retry, where the queue records the delay; absent or null elsewhere (the drill reads null as absent).
    retry_delay_ms: orNull(Count).optional(),
  }),
);

const TxEntry = named(
  'tx_entry',
  "A saga checkpoint to write (append_tx's entry, release_expired's and requeue_from_review's checkpoint).",
  z.looseObject({
    step_id: Text,
    action: z.enum(TX_ACTIONS),
    key: Text,
    status: z.enum(TX_STATUSES),
    external_reference: orNull(Text).optional(),
    compensation_status: orNull(Text).optional(),
    detail: orNull(Text).optional(),
    error_kind: orNull(Text).optional(),
  }),
);

const TxRow = named(
  'tx_row',
  "A saga checkpoint as stored (src/port/checkpoint.ts's TxRow).",
  z.looseObject({
    id: Count,
    job_id: Text,
    step_id: Text,
    action: z.enum(TX_ACTIONS),
    idempotency_key: Text,
    status: z.enum(TX_STATUSES),
    external_reference: orNull(Text),
    compensation_status: orNull(Text),
    attempt: Count,
    epoch: Count,
    worker: Text,
    detail: orNull(Text),
    error_kind: orNull(Text),
    at: Utc,
  }),
);

const Incident = named(
  'incident',
  "A compensation that failed for good, for a person (src/port/checkpoint.ts's Incident).",
  z.looseObject({ id: Count, job_id: Text, step_id: Text, error: Text, status: Text, at: Utc }),
);

const Settlement = named(
  'settlement',
  "A holder's one fenced write at the end of a delivery, by `kind`.",
  z.discriminatedUnion('kind', [
    z.looseObject({ kind: z.literal('done'), digest: Digest }),
    z.looseObject({ kind: z.literal('retry'), error: Text }),
    z.looseObject({ kind: z.literal('review'), reason: Text, error: orNull(Text).optional(), awaiting_approval: Flag.optional() }),
    z.looseObject({ kind: z.literal('compensate'), reason: Text, error: Text }),
    z.looseObject({ kind: z.literal('lease_lost') }),
  ]),
);

const Servers = named(
  'servers',
  'The servers a protocol 2 queue lives on, those given (a URL may carry a password: never log it).',
  z.looseObject({ pg_url: Text.optional(), redis_url: Text.optional() }),
);

const RetryDelay = z.looseObject({ base_ms: Count, cap_ms: Count, jitter_ms: Count });

const Demands = named(
  'demands',
  "The drill's demands, as `fit` reads them: the port's DrillDemands in snake_case.",
  z.looseObject({
    lease_ms: Count,
    skew_margin_ms: Count,
    poll_ms: Count,
    call_timeout_ms: Count,
    max_attempts: z.array(Count),
    retry_delay: RetryDelay,
    coordinator: Flag,
    approval: Flag,
    tools: z.array(Text),
    points: z.array(Text),
    holder_dies: Flag,
    queue_options: z.looseObject({}),
    timeout_ms: Count,
  }),
);

/** `true`, or the reason a person can read why not. */
const TrueOrReason = z.union([z.literal(true), z.string().min(1)]);

const QueueOption = named(
  'queue_option',
  "One of the queue's own options a user may set (protocol 2): what it changes, its default, and the values it may take.",
  z.looseObject({
    describe: Text,
    default: z.union([Text, z.number(), Flag]),
    type: z.union([z.literal('number'), z.literal('boolean'), z.looseObject({ one_of: z.array(Text).min(1) })]),
  }),
);

/** The queue's own options as the drill resolved them (defaults filled in): protocol 2. */
const QueueOptionValues = z.record(Text, z.union([Text, z.number(), Flag]));

/** What a child says of itself: who it is, its protocol, what it can show, the ops it answers, its limits; protocol 2: where its queue lives. */
const Hello = z.looseObject({
  name: Text,
  version: Text,
  protocol: z.literal(PROTOCOL_VERSIONS),
  description: Text.optional(),
  capabilities: z.looseObject({
    // Every evidence kind but renewals, which the drill's own worker does for the child.
    evidence: z.looseObject({
      ...Object.fromEntries(EVIDENCE_KINDS.filter((kind) => kind !== 'renewals').map((kind) => [kind, TrueOrReason])),
      renewals: TrueOrReason.optional(),
    }),
    fencing: TrueOrReason.optional(),
    takeover: z.enum(['coordinator', 'queue']),
    clock: z.enum(['caller', 'server']),
    saga_store: z.enum(['in-queue', 'beside-the-run']).optional(),
  }),
  ops: z.array(Text),
  limits: z.looseObject({ min_lease_ms: Count.optional(), max_attempts: Count.optional(), tools: z.array(Text).optional() }).optional(),
  locator_kind: z.enum(['file', 'name']).optional(),
  options: z.record(Text, QueueOption).optional(),
  needs: z.array(z.enum(Object.keys(SERVER_NEEDS) as [keyof typeof SERVER_NEEDS])).optional(),
});

const Fit = z.discriminatedUnion('ok', [
  z.looseObject({
    ok: z.literal(true),
    mapping: z.record(Text, z.union([Text, z.number(), Flag])).optional(),
    at_least: z.looseObject({ no_progress_ms: Count.optional(), timeout_ms: Count.optional(), why: Text }).optional(),
  }),
  z.looseObject({ ok: z.literal(false), reason: Text, unsupported: Flag.optional() }),
]);

/** An ok body that says nothing but that it happened (`{}`): a schema of its own for each op that answers it. */
const nothing = () => z.looseObject({});
const lease = { job_id: Text, holder: Text, epoch: Count };

/** One op: what it does, the fields its request carries besides id, op and now, and its ok answer's body. */
interface OpSpec {
  describe: string;
  fields: z.core.$ZodLooseShape;
  ok: z.ZodType;
}

const op = (describe: string, fields: z.core.$ZodLooseShape, ok: z.ZodType): OpSpec => ({ describe, fields, ok });

/** Every op of the protocol, required, optional and protocol 2's alike: the list is written here, once. */
const OPS = {
  hello: op('who the child is', { protocol: z.int().min(1) }, Hello),
  provision: op(
    'make a queue of its own for a run',
    { run_dir: Text, run_id: Text, servers: Servers.optional(), queue_options: QueueOptionValues.optional() },
    z.looseObject({ locator: Text, where: Text.optional() }),
  ),
  open: op(
    'open the queue the locator names',
    {
      store: Text,
      servers: Servers.optional(),
      lease_ms: Count,
      skew_margin_ms: Count,
      retry_delay: RetryDelay,
      seed: z.int(),
      queue_options: QueueOptionValues.optional(),
    },
    nothing(),
  ),
  enqueue: op(
    'a job, once per key',
    { key: Text, action: Text, payload: Text, max_attempts: Count },
    z.looseObject({ outcome: z.enum(['created', 'deduplicated']), job_id: Text }),
  ),
  work: op(
    'run the loop that claims and delivers; answered when it ends',
    { worker_id: Text, poll_ms: Count, max_jobs: Count, exit_when_drained: Flag },
    z.looseObject({ processed: Count }),
  ),
  stop_work: op('end the loop after the delivery in hand', {}, nothing()),
  settle: op("a holder's one fenced write", { ...lease, settlement: Settlement }, z.looseObject({ status: orNull(Status) })),
  // null: the queue renews nothing (Celery's visibility timeout runs from delivery), so no new lease end.
  heartbeat: op("renew the holder's lease", lease, z.looseObject({ lease_until: orNull(Utc) })),
  snapshot: op(
    'every job, and the history unless told not to',
    { history: Flag.optional() },
    z.looseObject({ jobs: z.array(Job), history: z.array(Transition).optional() }),
  ),
  progress: op('text that changes whenever a history entry is written', {}, z.looseObject({ progress: Text })),
  claim: op('claim one job by hand', { worker_id: Text }, z.looseObject({ claim: orNull(Claim) })),
  expire_lease: op("end a job's lease now", { job_id: Text }, nothing()),
  expired_leases: op('running jobs whose lease ended', {}, z.looseObject({ claims: z.array(Claim) })),
  release_expired: op(
    'take an expired lease back, once',
    { job_id: Text, epoch: Count, attempt: Count, to: z.enum(['retry', 'review']), reason: Text, by: Text, checkpoint: TxEntry.optional() },
    z.looseObject({ released: Flag }),
  ),
  maintain: op("the queue's own sweep of expired leases", {}, z.looseObject({ moved: Count })),
  claim_compensation: op('take a compensating job under a new epoch', { coordinator_id: Text }, z.looseObject({ claim: orNull(Claim) })),
  finish_compensation: op(
    'end a compensation in review',
    { ...lease, outcome: z.enum(['compensated', 'compensation_failed']), reason: Text },
    z.looseObject({ status: Status }),
  ),
  requeue_from_review: op(
    "a person's requeue",
    { job_id: Text, by: Text, note: Text, checkpoint: TxEntry.optional() },
    z.looseObject({ requeued: Flag }),
  ),
  append_tx: op("a saga checkpoint, under the writer's live lease", { ...lease, entry: TxEntry }, z.looseObject({ appended: Flag })),
  read_tx: op('the saga checkpoints, in order', { job_id: Text.optional() }, z.looseObject({ rows: z.array(TxRow) })),
  record_incident: op('an incident for a person', { job_id: Text, step_id: Text, error: Text }, nothing()),
  incidents: op('the incidents, in order', { job_id: Text.optional() }, z.looseObject({ incidents: z.array(Incident) })),
  teardown: op('protocol 2: remove the queue, unless keep', { store: Text, keep: Flag, servers: Servers }, nothing()),
  fit: op('protocol 2: whether the queue can run a drill', { demands: Demands, servers: Servers }, Fit),
} satisfies Record<string, OpSpec>;

/** The name of an op of the protocol. */
export type WireOpName = keyof typeof OPS;

/** One op on the wire: its request (id, op, now and its fields) and the body of its ok answer. */
export interface WireOp {
  request: z.ZodObject;
  ok: z.ZodType;
}

function wireOp(name: string, spec: OpSpec): WireOp {
  return {
    request: named(`request.${name}`, `${name}: ${spec.describe}.`, z.looseObject({ id: Count, op: z.literal(name), now: z.int(), ...spec.fields })),
    ok: named(`ok.${name}`, `The body of an ok answer to ${name}.`, spec.ok),
  };
}

/** Every op's request and ok body, by op name: `WIRE_OPS.snapshot.ok` is what an ok answer to snapshot must carry. */
export const WIRE_OPS = Object.fromEntries(Object.entries(OPS).map(([name, spec]) => [name, wireOp(name, spec)])) as Readonly<
  Record<WireOpName, WireOp>
>;

/** Whether `op` is an op of the protocol. */
export function isWireOp(op: string): op is WireOpName {
  return Object.hasOwn(WIRE_OPS, op);
}

/** Any request: its op picks its fields. */
export const RequestSchema = named(
  'request',
  "A request, drill to child: a whole-number id unique per child, the op, `now` (the drill's clock, ms since the epoch), and the op's fields.",
  z.discriminatedUnion('op', Object.values(WIRE_OPS).map((o) => o.request) as [z.ZodObject, ...z.ZodObject[]]),
);

const Code = z.string().min(1);

export const OkAnswerSchema = named(
  'answer.ok',
  "It happened. `re` names the request; `body` is the op's ok body (definitions/ok.OP).",
  z.looseObject({ re: Count, type: z.literal('ok'), body: z.looseObject({}) }),
);
export const FailAnswerSchema = named(
  'answer.fail',
  'It certainly did not happen (definite). `re` is null for a line the child could not read. Codes: bad_request, unknown_op, not_open, ' +
    'lease_lost, store_error, or others.',
  z.looseObject({ re: orNull(Count), type: z.literal('fail'), code: Code, message: Text }),
);
export const InfoAnswerSchema = named(
  'answer.info',
  'It may have happened (indefinite: a crash, a commit that did not answer). Codes: store_error, internal, or others.',
  z.looseObject({ re: orNull(Count), type: z.literal('info'), code: Code, message: Text }),
);

/** Any answer, child to drill. */
export const AnswerSchema = named(
  'answer',
  'An answer, child to drill: ok, fail or info.',
  z.discriminatedUnion('type', [OkAnswerSchema, FailAnswerSchema, InfoAnswerSchema]),
);

/** An ok answer to `op`, its body checked as that op's. */
export function okAnswerOf(op: WireOpName): z.ZodType {
  return OkAnswerSchema.extend({ body: WIRE_OPS[op].ok });
}

/** The one event, child to drill, unasked: a job its loop claimed. */
export const DeliverEventSchema = named(
  'deliver',
  "A job the child's work loop claimed, handed to the drill worker, which settles it before the loop claims again.",
  z.looseObject({ event: z.literal('deliver'), delivery: Claim }),
);
