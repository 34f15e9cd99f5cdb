import { HarnessError } from '../../kernel/errors.js';
import type { EvidenceKind } from '../../kernel/vocabulary.js';
import type { JobSnapshot, Transition } from '../../port/snapshot.js';
import { type Plan, PlanSchema, type PlanStep, stepKey } from '../../saga/plan.js';
import type { TxRow } from '../../saga/tx-log.js';
import type { EffectRow } from '../../world/ledger.js';
import type { Accepted, Evidence, Invariant, InvariantId, Verdict } from '../evidence.js';

/*
 * What the invariants share: how a finding is written (so a person can find the
 * job, the key, the row), how a job's history is rebuilt from the evidence, and
 * the guard that turns a checker's crash on odd evidence into a verdict that
 * says what it could not judge. Internal to src/judge/invariants.
 */

/** A verdict longer than this is cut, with a count of what was left off: a report must stay readable. */
export const MAX_EVIDENCE_LINES = 200;

/** Where an invariant writes what it found. */
export interface Findings {
  /** A piece of evidence that breaks the invariant. */
  breach(line: string): void;
  /** Something the invariant could not judge, or had nothing to judge (the verdict still holds). */
  note(line: string): void;
  /**
   * `count` more items examined, in the invariant's own unit (a job, a lease,
   * a key, a planted secret): the verdict's `judged`, so "held" on nothing can
   * be told from "held" on something. @default 1
   */
  judged(count?: number): void;
}

/**
 * Runs one invariant's judgement. A checker that throws on evidence it did not
 * expect fails closed: a gate must never pass because its judge crashed, and
 * the line says so, so the cause is a bug to fix rather than a breach to chase.
 */
export function judge(id: InvariantId, statement: string, evidence: Evidence, body: (findings: Findings, evidence: Evidence) => void): Verdict {
  const breaches: string[] = [];
  const notes: string[] = [];
  let judged = 0;
  try {
    body(
      {
        breach: (line) => breaches.push(line),
        note: (line) => notes.push(line),
        judged: (count = 1) => {
          judged += count;
        },
      },
      evidence,
    );
  } catch (error) {
    breaches.push(
      `could not judge this evidence (the checker failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)})`,
    );
  }
  const lines =
    breaches.length > MAX_EVIDENCE_LINES
      ? [...breaches.slice(0, MAX_EVIDENCE_LINES), `... and ${breaches.length - MAX_EVIDENCE_LINES} more`]
      : breaches;
  const verdict: Verdict = { id, statement, status: breaches.length === 0 ? 'held' : 'broken', judged, evidence: lines };
  if (notes.length > 0) verdict.note = [...new Set(notes)].join('; ');
  return verdict;
}

/** What an invariant's file says of it: defineInvariant makes the checker the judge runs. */
export interface InvariantSpec {
  id: InvariantId;
  /** One line, as the report prints it (and docs/design.md states it). */
  statement: string;
  /** The evidence it needs beyond what every drill has: a queue that cannot give one leaves it not judged. */
  needs: readonly EvidenceKind[];
  /** Judges the evidence: each breach, each note and how much was judged, into `found`. */
  judge(evidence: Evidence, found: Findings): void;
  /** See Invariant.checkWithout: the part judged without what `needs` names. */
  checkWithout?(evidence: Evidence, missing: string): Verdict | null;
}

/** An invariant from its spec: its judgement runs through `judge`, so a checker that throws fails closed. */
export function defineInvariant(spec: InvariantSpec): Invariant {
  const { id, statement, needs, checkWithout } = spec;
  return {
    id,
    statement,
    needs,
    check: (evidence) => judge(id, statement, evidence, (found) => spec.judge(evidence, found)),
    ...(checkWithout ? { checkWithout } : {}),
  };
}

/** The evidence's fields that are lists. */
type ListField = { [K in keyof Evidence]-?: Evidence[K] extends readonly unknown[] ? K : never }[keyof Evidence];

/**
 * Evidence that is not there where a list must be: gathering never leaves a
 * source out (missing evidence is the harness's error, reported before any
 * judging), so this is a bug in whatever built the evidence.
 */
export class MissingEvidenceError extends HarnessError {
  constructor(field: string, value: unknown) {
    super(
      'QD_EVIDENCE_MISSING',
      `evidence.${field} is ${value === null ? 'null' : typeof value}, not a list: nothing can be judged on evidence that is not there`,
    );
  }
}

/**
 * One list of the evidence, failing closed: a field that is not a list throws
 * MissingEvidenceError (judge() turns it into a broken verdict saying so),
 * never an empty list that every invariant would hold on.
 */
export function evidenceList<K extends ListField>(evidence: Evidence, field: K): Evidence[K] {
  const value: unknown = evidence[field];
  if (!Array.isArray(value)) throw new MissingEvidenceError(field, value);
  return value as Evidence[K];
}

/** A key short enough for a line, long enough to grep for ("1a2b3c4d…"). */
export function shortKey(key: string): string {
  return typeof key === 'string' && key.length > 12 ? `${key.slice(0, 8)}…` : String(key);
}

/** "job 3 (key 1a2b3c4d…)": how every line names a job. */
export function jobLabel(job: Pick<JobSnapshot, 'id' | 'key'>): string {
  return `job ${job.id} (key ${shortKey(job.key)})`;
}

/** "event #12 running→done by worker w1, epoch 2, attempt 1, at …". */
export function eventLabel(event: Transition): string {
  const who = event.worker ? `${event.actor} ${event.worker}` : event.actor;
  const kind = event.kind === 'refused' ? 'refused ' : '';
  return `event #${event.seq} ${kind}${event.from ?? '(new)'}→${event.to} by ${who}, epoch ${event.epoch}, attempt ${event.attempt}, at ${event.at}`;
}

/** "tx #7 charge execute unknown (attempt 1, w1, at …)". */
export function txLabel(row: TxRow): string {
  return `tx #${row.id} ${row.step_id} ${row.action} ${row.status} (attempt ${row.attempt}, epoch ${row.epoch}, ${row.worker}, at ${row.at})`;
}

/** "ledger #5 send_email by w2 attempt 2 pid 4242 at …". */
export function effectLabel(effect: EffectRow): string {
  return `ledger #${effect.seq} ${effect.tool} by ${effect.worker} attempt ${effect.attempt} pid ${effect.pid} at ${effect.at}`;
}

/** A text cut to `max` characters for a line, with its length when cut. */
export function clip(text: string | null | undefined, max = 120): string {
  if (text === null || text === undefined) return '(none)';
  const one = String(text).replace(/\s+/g, ' ');
  return one.length > max ? `${JSON.stringify(one.slice(0, max))}… (${one.length} chars)` : JSON.stringify(one);
}

/** Milliseconds of a stored timestamp, or undefined when it is not one (never NaN arithmetic). */
export function timeOf(at: string | null | undefined): number | undefined {
  if (typeof at !== 'string') return undefined;
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A 64-hex SHA-256 digest, the only proof of done the store accepts. */
export function isDigest(value: unknown): boolean {
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = map.get(key);
    if (group) group.push(item);
    else map.set(key, [item]);
  }
  return map;
}

/** Each job's history, in the order the queue wrote it (by seq). */
export function historyByJob(evidence: Evidence): Map<string, Transition[]> {
  const map = groupBy(evidenceList(evidence, 'events'), (event) => event.jobId);
  for (const events of map.values()) events.sort((a, b) => a.seq - b.seq);
  return map;
}

/** Each job's transaction log, in the order it was written (by row id). */
export function txByJob(evidence: Evidence): Map<string, TxRow[]> {
  const map = groupBy(evidenceList(evidence, 'txLog'), (row) => row.job_id);
  for (const rows of map.values()) rows.sort((a, b) => a.id - b.id);
  return map;
}

/** The ledger's effects by idempotency key, in the order applied. */
export function groupEffectsByKey(evidence: Evidence): Map<string, EffectRow[]> {
  const map = groupBy(evidenceList(evidence, 'effects'), (effect) => effect.key);
  for (const effects of map.values()) effects.sort((a, b) => a.seq - b.seq);
  return map;
}

/** The original effects under a step's key (not compensations, which have keys of their own anyway). */
export function stepEffects(byKey: Map<string, EffectRow[]>, key: string): EffectRow[] {
  return (byKey.get(key) ?? []).filter((effect) => effect.compensates === null || effect.compensates === undefined);
}

/** The accepted requests by key (the first, if a key was listed twice). */
export function acceptedByKey(evidence: Evidence): Map<string, Accepted> {
  const map = new Map<string, Accepted>();
  for (const accepted of evidenceList(evidence, 'accepted')) if (!map.has(accepted.key)) map.set(accepted.key, accepted);
  return map;
}

/** A claim: the transition that starts an attempt and opens a lease. */
export function isClaim(event: Transition): boolean {
  return event.kind === 'transition' && event.to === 'running';
}

/** One lease rebuilt from the history: opened by a claim, ended by the next transition out of running, or by a later claim. */
export interface LeaseInterval {
  claim: Transition;
  /** Undefined while the lease is still open at the end of the history. */
  end: Transition | undefined;
}

/** The leases of one job, from its history (sorted by id). */
export function leasesOf(history: readonly Transition[]): LeaseInterval[] {
  const leases: LeaseInterval[] = [];
  let open: LeaseInterval | undefined;
  for (const event of history) {
    if (event.kind !== 'transition') continue;
    if (open && (isClaim(event) || event.from === 'running')) {
      open.end = event;
      open = undefined;
    }
    if (isClaim(event)) {
      open = { claim: event, end: undefined };
      leases.push(open);
    }
  }
  return leases;
}

/** The lease of attempt `attempt` (each claim counts one attempt, so the number names one claim). */
export function leaseOfAttempt(leases: readonly LeaseInterval[], attempt: number): LeaseInterval | undefined {
  return leases.find((lease) => lease.claim.attempt === attempt);
}

/** Whether a person sent the job back from review between two events of its history (by seq). */
export function humanRequeueBetween(history: readonly Transition[], afterId: number, beforeId: number): Transition | undefined {
  return history.find(
    (event) => event.kind === 'transition' && event.seq > afterId && event.seq < beforeId && event.from === 'review' && event.actor === 'human',
  );
}

/** A job's plan: as accepted (what the producer asked for), else as stored in its payload. */
export type PlanLookup = { plan: Plan; source: 'accepted' | 'payload' } | { plan: null; problem: string };

/** Finds a job's plan without throwing: a job that is not a plan job, or a plan that does not parse, says why. */
export function planOf(job: JobSnapshot, accepted: Map<string, Accepted>): PlanLookup {
  const asked = accepted.get(job.key);
  if (asked?.plan && Array.isArray(asked.plan.steps)) return { plan: asked.plan, source: 'accepted' };
  let payload: unknown;
  try {
    payload = JSON.parse(job.payload);
  } catch {
    return { plan: null, problem: `${jobLabel(job)}: payload is not JSON` };
  }
  const raw = payload !== null && typeof payload === 'object' ? (payload as { plan?: unknown }).plan : undefined;
  if (raw === undefined) return { plan: null, problem: `${jobLabel(job)} is not a plan job (action ${job.action})` };
  const parsed = PlanSchema.safeParse(raw);
  return parsed.success ? { plan: parsed.data, source: 'payload' } : { plan: null, problem: `${jobLabel(job)}: its stored plan does not parse` };
}

/** The steps of a plan that touch the world, each with its ledger key. */
export function sideEffectSteps(job: JobSnapshot, plan: Plan): Array<{ step: PlanStep; key: string }> {
  return plan.steps.filter((step) => step.has_side_effect).map((step) => ({ step, key: stepKey(job.key, step.step_id) }));
}
