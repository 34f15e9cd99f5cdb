import { QueueDrillError } from '../../kernel/errors.js';
import type { Claim } from '../../port/delivery.js';
import type { JobSnapshot, Transition } from '../../port/snapshot.js';

/*
 * The process protocol's messages (docs/protocol.md), as the drill reads and
 * writes them: JSON lines, snake_case on the wire, the port's words inside.
 * A request carries an id; its answer names it in `re` and is `ok` (it
 * happened), `fail` (it certainly did not) or `info` (it may have: a crash, a
 * commit that did not answer), as Jepsen and Maelstrom say it.
 */

/**
 * The newest protocol version this drill speaks, sent in every hello. A child
 * answers with its own: 1 (a queue in a file of the run directory) or 2 (a
 * queue anywhere, a server's namespace included: provision and teardown on
 * the servers the drill names, and fit asked of the child before a drill runs).
 */
export const PROTOCOL_VERSION = 2;

/** Every version this drill speaks: a child of an older one keeps working. */
export const PROTOCOL_VERSIONS = [1, 2] as const;

/** One protocol version. */
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** A request from the drill: its id, its op, the drill's clock, and the op's fields. */
export type Request = { id: number; op: string; now: number } & Record<string, unknown>;

/** An answer from the child. */
export type Answer =
  | { re: number | null; type: 'ok'; body: Record<string, unknown> }
  | { re: number | null; type: 'fail' | 'info'; code: string; message: string };

/** A message the child sends on its own: today only `deliver`. */
export interface ChildEvent {
  event: string;
  [field: string]: unknown;
}

/** A `fail` or `info` answer, or a child that broke the protocol: which message, and whether what was asked certainly did not happen. */
export class ProtocolError extends QueueDrillError {
  readonly exitCode = 3;
  constructor(
    readonly code: string,
    message: string,
    /** True: certainly not done (`fail`); false: it may have been (`info`, a child that died, an answer that never came). */
    readonly definite: boolean,
    readonly op: string,
  ) {
    super(`${op}: ${message} [${code}]`);
  }
}

/** What a wire claim (deliver, claim, expired_leases, claim_compensation) must hold. */
export interface WireClaim {
  job_id: string;
  key: string;
  action: string;
  payload: string;
  attempt: number;
  max_attempts: number;
  epoch: number;
  holder: string;
  token: string | null;
  lease_until: string | null;
}

/** A wire claim in the port's words; throws when a field is missing or of the wrong type. */
export function toClaim(wire: unknown, where: string): Claim {
  const w = record(wire, where);
  return {
    jobId: text(w, 'job_id', where),
    key: text(w, 'key', where),
    action: text(w, 'action', where),
    payload: text(w, 'payload', where),
    attempt: count(w, 'attempt', where),
    maxAttempts: count(w, 'max_attempts', where),
    epoch: count(w, 'epoch', where),
    holder: text(w, 'holder', where),
    token: textOrNull(w, 'token', where),
    leaseUntil: textOrNull(w, 'lease_until', where),
  };
}

/** The fields of a claim every write of its holder shows. */
export function leaseFields(claim: Pick<Claim, 'jobId' | 'holder' | 'epoch'>): Record<string, unknown> {
  return { job_id: claim.jobId, holder: claim.holder, epoch: claim.epoch };
}

/** A wire job in the port's words. */
export function toJob(wire: unknown, where: string): JobSnapshot {
  const w = record(wire, where);
  return {
    id: text(w, 'id', where),
    key: text(w, 'key', where),
    action: text(w, 'action', where),
    payload: text(w, 'payload', where),
    status: text(w, 'status', where) as JobSnapshot['status'],
    outcome: textOrNull(w, 'outcome', where) as JobSnapshot['outcome'],
    attempts: count(w, 'attempts', where),
    maxAttempts: count(w, 'max_attempts', where),
    holder: textOrNull(w, 'holder', where),
    leaseUntil: textOrNull(w, 'lease_until', where),
    epoch: count(w, 'epoch', where),
    nextRunAt: textOrNull(w, 'next_run_at', where),
    lastError: textOrNull(w, 'last_error', where),
    reviewReason: textOrNull(w, 'review_reason', where),
    resultDigest: textOrNull(w, 'result_digest', where),
    createdAt: text(w, 'created_at', where),
    updatedAt: text(w, 'updated_at', where),
  };
}

/** A wire history entry in the port's words. */
export function toTransition(wire: unknown, where: string): Transition {
  const w = record(wire, where);
  const delay = w.retry_delay_ms;
  return {
    seq: count(w, 'seq', where),
    jobId: text(w, 'job_id', where),
    kind: text(w, 'kind', where) as Transition['kind'],
    from: textOrNull(w, 'from', where) as Transition['from'],
    to: text(w, 'to', where) as Transition['to'],
    attempt: count(w, 'attempt', where),
    epoch: count(w, 'epoch', where),
    worker: textOrNull(w, 'worker', where),
    actor: text(w, 'actor', where) as Transition['actor'],
    reason: text(w, 'reason', where),
    at: text(w, 'at', where),
    ...(typeof delay === 'number' ? { retryDelayMs: delay } : {}),
  };
}

/** A child's message that is not what the protocol says: a broken implementation, named by the message. */
export class MalformedMessageError extends QueueDrillError {
  readonly code = 'QD_PROTOCOL_MALFORMED';
  readonly exitCode = 3;
}

/** `value` as an object, else a MalformedMessageError naming `where`. */
export function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedMessageError(`${where} is not an object`);
  return value as Record<string, unknown>;
}

/** A text field. */
export function text(w: Record<string, unknown>, name: string, where: string): string {
  const value = w[name];
  if (typeof value !== 'string') throw new MalformedMessageError(`${where}.${name} must be text, got ${JSON.stringify(value)}`);
  return value;
}

function textOrNull(w: Record<string, unknown>, name: string, where: string): string | null {
  const value = w[name];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new MalformedMessageError(`${where}.${name} must be text or null, got ${JSON.stringify(value)}`);
  return value;
}

/** A whole number field, 0 or more. */
export function count(w: Record<string, unknown>, name: string, where: string): number {
  const value = w[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new MalformedMessageError(`${where}.${name} must be a whole number, got ${JSON.stringify(value)}`);
  return value;
}
