import { createHash } from 'node:crypto';
import { InputError } from '../kernel/errors.js';
import type { Random } from '../kernel/random.js';
import { FAULT_ACTION_NAMES, type FaultActionName, type PointFaultActionSpec, pointFaultAction } from './actions/index.js';
import { type FailpointContext, type FailpointName, isFailpointName } from './points.js';

/*
 * The harness's decision at a failpoint, pure: rules in, decisions out, no I/O
 * and no clock. In the spirit of fail-rs's `p%cnt*action(arg)`: a rule names a
 * point, an action and its argument, and is limited by `where` (only this
 * worker, attempt, step, tool or job), `first` (only the first N hits that
 * match; without it, every hit: a poison fault) and `probability` (fire with
 * chance p, drawn from the drill's seed).
 *
 * Rules are tried in order and the first that fires decides. Every rule whose
 * point and `where` match counts the hit, fired or not, so `first` means "the
 * first N times this point was reached in this context", independent of other
 * rules. Unlike fail-rs's `cnt` (at most N fires), `first` bounds hits: with
 * `probability`, each of the first N hits fires with chance p.
 *
 * A probability is drawn from a hash of the rule's seed (split off the given
 * Random in rule order at construction) and what the hit is about: its point,
 * its job (by key), attempt, step and tool, the process for a hit that is not
 * about a claimed job (a producer's enqueue), and how many times this very
 * hit has come before. Never from the order hits arrive in, which the OS
 * decides when several workers race: a replay decides the same for each hit,
 * whichever worker reached it first, and one rule's draws do not shift when
 * another rule's hits change. (`first` still counts hits in the order they
 * arrive: "the first N" is an order.)
 */

export type { FaultActionName, PointFaultActionSpec } from './actions/index.js';

/** The context a rule is limited to; every field given must equal the hit's. */
export interface FaultWhere {
  worker?: string;
  attempt?: number;
  step?: string;
  tool?: string;
  jobId?: string;
  /** The job by its idempotency key: a scenario knows its jobs' keys, not the ids the queue gives them. */
  jobKey?: string;
}

/** One armed fault: an action at a point, optionally limited. */
export interface FaultRule {
  /** Names the rule in the timeline and the report. */
  id: string;
  point: FailpointName;
  action: FaultActionName;
  /** The action's argument (its fields in a scenario: ms, code, kind, message), checked by the action. */
  arg?: Readonly<Record<string, unknown>>;
  where?: FaultWhere;
  /** Only the first N matching hits can fire. @default no limit */
  first?: number;
  /** Chance in [0, 1] that a matching hit fires, drawn from the seed. @default 1 */
  probability?: number;
}

/** A rule fired at a hit: which, and what to do. */
export interface FaultDecision {
  rule: FaultRule;
  action: PointFaultActionSpec;
}

/** How often a rule's point was reached in its context, and how often it fired. */
export interface RuleStats {
  rule: FaultRule;
  hits: number;
  fires: number;
  /** Fires that did nothing (a drop armed that no request met), taken off `fires`; absent when none. */
  idle?: number;
}

/** A fault rule is malformed or conflicts with another; the message names the rule and what is allowed. */
export class FaultPlanError extends InputError {
  readonly code = 'QD_BAD_FAULT_RULE';
  override readonly name = 'FaultPlanError';
}

interface RuleState {
  rule: FaultRule;
  action: PointFaultActionSpec;
  /** The rule's own seed for its draws. */
  seed: number;
  /** How many times each hit (by its identity) has come so far. */
  seen: Map<string, number>;
  hits: number;
  fires: number;
  idle: number;
}

/** Decides, from the rules and the seed, which fault (if any) fires at each hit, and counts. */
export class FaultPlan {
  private readonly states: RuleState[];

  constructor(rules: readonly FaultRule[], random: Random) {
    const ids = new Set<string>();
    this.states = rules.map((rule, index) => {
      validateRule(rule, index);
      if (ids.has(rule.id)) throw new FaultPlanError(`fault rule ids must be unique: ${JSON.stringify(rule.id)} appears twice`);
      ids.add(rule.id);
      return {
        rule,
        action: pointFaultAction(rule.action)!.resolve(rule.arg, rule) as PointFaultActionSpec,
        seed: Math.floor(random.next() * 2 ** 32),
        seen: new Map(),
        hits: 0,
        fires: 0,
        idle: 0,
      };
    });
  }

  /** Counts the hit for every matching rule and returns the first that fires, or null: continue. */
  decide(context: FailpointContext): FaultDecision | null {
    let decision: FaultDecision | null = null;
    const identity = hitIdentity(context);
    for (const state of this.states) {
      if (!matches(state.rule, context)) continue;
      state.hits++;
      const occurrence = (state.seen.get(identity) ?? 0) + 1;
      state.seen.set(identity, occurrence);
      if (decision !== null) continue;
      const { first, probability } = state.rule;
      if (first !== undefined && state.hits > first) continue;
      if (probability !== undefined && !(draw(state.seed, identity, occurrence) < probability)) continue;
      state.fires++;
      decision = { rule: state.rule, action: state.action };
    }
    return decision;
  }

  /** A fire of rule `id` did nothing after all (a drop armed that no request met): it no longer counts as fired. */
  idled(id: string): void {
    const state = this.states.find((s) => s.rule.id === id);
    if (!state || state.fires === 0) return;
    state.fires--;
    state.idle++;
  }

  /** Every rule with its counts, in rule order. */
  stats(): RuleStats[] {
    return this.states.map(({ rule, hits, fires, idle }) => ({ rule, hits, fires, ...(idle > 0 ? { idle } : {}) }));
  }

  /** The rules that fired at least once. */
  fired(): RuleStats[] {
    return this.stats().filter((s) => s.fires > 0);
  }

  /** The rules armed that never fired: a drill that relied on one proved nothing. */
  unfired(): RuleStats[] {
    return this.stats().filter((s) => s.fires === 0);
  }
}

/** One line for a report: "crash at after_write (rule r1, worker=w1, first 1) never fired: 0 hits". */
export function describeUnfired(stats: RuleStats): string {
  const { rule } = stats;
  const limits = [
    ...Object.entries(rule.where ?? {}).map(([key, value]) => `${key}=${String(value)}`),
    ...(rule.first !== undefined ? [`first ${rule.first}`] : []),
    ...(rule.probability !== undefined ? [`probability ${rule.probability}`] : []),
  ];
  return (
    `${rule.action} at ${rule.point} (rule ${rule.id}${limits.length ? `, ${limits.join(', ')}` : ''}) ` +
    `never fired: ${stats.hits} hit${stats.hits === 1 ? '' : 's'}` +
    (stats.idle ? `, ${stats.idle} of them fired and did nothing (no request it aims at came)` : '')
  );
}

function matches(rule: FaultRule, context: FailpointContext): boolean {
  if (rule.point !== context.point) return false;
  const where = rule.where;
  if (where === undefined) return true;
  return (
    (where.worker === undefined || where.worker === context.worker) &&
    (where.attempt === undefined || where.attempt === context.attempt) &&
    (where.step === undefined || where.step === context.step) &&
    (where.tool === undefined || where.tool === context.tool) &&
    (where.jobId === undefined || where.jobId === context.jobId) &&
    (where.jobKey === undefined || where.jobKey === jobKeyOf(context))
  );
}

/**
 * What a hit is about, in words that do not depend on timing: the point, the
 * job by its key (ids follow the order of enqueues, which racing producers
 * decide), the attempt, step, tool and idempotency key; the process only for a
 * hit outside a claimed job (two producers enqueuing one key are two hits),
 * since which worker claims a job is the OS's choice.
 */
export function hitIdentity(context: FailpointContext): string {
  return JSON.stringify([
    context.point,
    jobKeyOf(context) ?? context.jobId ?? null,
    context.attempt ?? null,
    context.step ?? null,
    context.tool ?? null,
    context.key ?? null,
    context.attempt === undefined ? context.worker : null,
  ]);
}

/** A number in [0, 1) from the rule's seed, the hit's identity and how many times that hit has come (1 the first). */
function draw(seed: number, identity: string, occurrence: number): number {
  return createHash('sha256').update(`${seed}\0${identity}\0${occurrence}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** The key of the job a hit is about: a producer about to enqueue names it by `key` (src/producer/produce-plans.ts). */
function jobKeyOf(context: FailpointContext): string | undefined {
  return context.jobKey ?? (context.point === 'enqueue' ? context.key : undefined);
}

const WHERE_FIELDS = { worker: 'string', attempt: 'integer', step: 'string', tool: 'string', jobId: 'string', jobKey: 'string' } as const;

// Rules usually come from scenarios.yaml, validated there; this guards callers
// that build them by hand, because a silently ignored limit arms the wrong fault.
function validateRule(rule: FaultRule, index: number): void {
  const at = `fault rule ${index} (${JSON.stringify((rule as { id?: unknown }).id)})`;
  const fail = (problem: string): never => {
    throw new FaultPlanError(`${at}: ${problem}`);
  };
  if (typeof rule.id !== 'string' || rule.id === '') fail('id must be a non-empty string');
  if (!isFailpointName(rule.point)) fail(`unknown point ${JSON.stringify(rule.point)}`);
  const action = pointFaultAction(rule.action);
  if (!action) fail(`unknown action ${JSON.stringify(rule.action)}; allowed: ${FAULT_ACTION_NAMES.join(', ')}`);
  if (rule.first !== undefined && !(Number.isInteger(rule.first) && rule.first >= 1)) fail(`first must be an integer >= 1, got ${rule.first}`);
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
    fail(`probability must be in [0, 1], got ${rule.probability}`);
  }
  for (const [key, value] of Object.entries(rule.where ?? {})) {
    const type = WHERE_FIELDS[key as keyof typeof WHERE_FIELDS];
    if (type === undefined) fail(`unknown where.${key}; allowed: ${Object.keys(WHERE_FIELDS).join(', ')}`);
    if (value !== undefined && (type === 'string' ? typeof value !== 'string' : !Number.isInteger(value)))
      fail(`where.${key} must be ${type === 'string' ? 'a string' : 'an integer'}`);
  }
  const problem = action!.checkArg(rule.arg);
  if (problem !== null) fail(problem);
}
