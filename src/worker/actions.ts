import { setTimeout as sleep } from 'node:timers/promises';
import {
  BusinessRuleError,
  type ErrorKind,
  type JobError,
  PermanentError,
  PolicyViolationError,
  TransientError,
  UnknownOutcomeError,
} from '../kernel/job-errors.js';
import type { Delivery } from '../port/delivery.js';
import type { EffectKind } from '../saga/recovery.js';
import { appendEffect, loggedEffectsFor } from './effect-log.js';

/** What an action sees of the job it runs. */
export interface ActionContext {
  job: Delivery;
  payload: Record<string, unknown>;
  workerId: string;
  effectLog: string;
  now: () => string;
  /** Aborted when the lease is lost or the worker is told to stop. */
  signal: AbortSignal;
}

/**
 * A kind of job the demo worker knows. `run` does the work and returns what it
 * did; `verify` checks that against independent evidence and returns the digest
 * that `done` needs, so done is never the action's own word.
 */
export interface Action {
  effect: EffectKind;
  run(ctx: ActionContext): Promise<unknown>;
  verify(ctx: ActionContext, output: unknown): string;
}

/** SHA-256 hex of a JSON value: the result digest stored with a done job. */
export function digestOf(value: unknown): string {
  // node:crypto is loaded at the first digest, not at start: a worker stopped before it completes a job never needs it.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

function waitMs(ctx: ActionContext): Promise<void> {
  const ms = Number(ctx.payload.ms ?? 0);
  return ms > 0 ? sleep(ms, undefined, { signal: ctx.signal }) : Promise.resolve();
}

/**
 * `record`: applies a non-idempotent effect (one line in the effect log). On a
 * later attempt the previous one may have applied it before dying, so it asks
 * the log first (reconciliation) instead of applying blind.
 */
const record: Action = {
  effect: 'non_idempotent',
  async run(ctx) {
    await waitMs(ctx);
    if (ctx.job.attempt > 1 && loggedEffectsFor(ctx.effectLog, ctx.job.key).length > 0) {
      return { reconciled: true };
    }
    appendEffect(ctx.effectLog, {
      key: ctx.job.key,
      jobId: ctx.job.jobId,
      worker: ctx.workerId,
      attempt: ctx.job.attempt,
      pid: process.pid,
      at: ctx.now(),
    });
    return { reconciled: false };
  },
  verify(ctx) {
    const applied = loggedEffectsFor(ctx.effectLog, ctx.job.key);
    const first = applied[0];
    if (!first) throw new UnknownOutcomeError(`effect for ${ctx.job.key.slice(0, 12)} not found in the effect log`);
    return digestOf({ key: first.key, jobId: first.jobId });
  },
};

/** `sleep`: works for `ms` without touching the world. */
const sleepAction: Action = {
  effect: 'none',
  async run(ctx) {
    await waitMs(ctx);
    return { slept: Number(ctx.payload.ms ?? 0) };
  },
  verify(_ctx, output) {
    return digestOf(output);
  },
};

const ERROR_BY_KIND: Record<Exclude<ErrorKind, 'unclassified'>, new (message: string) => JobError> = {
  transient: TransientError,
  permanent: PermanentError,
  business: BusinessRuleError,
  unknown_outcome: UnknownOutcomeError,
  policy: PolicyViolationError,
};

/** `fail`: throws `payload.kind` on attempts up to `payload.failAttempts` (default: all), then succeeds. */
const fail: Action = {
  effect: 'idempotent',
  async run(ctx) {
    await waitMs(ctx);
    const failAttempts = Number(ctx.payload.failAttempts ?? Number.POSITIVE_INFINITY);
    if (ctx.job.attempt <= failAttempts) {
      const kind = String(ctx.payload.kind ?? 'transient') as keyof typeof ERROR_BY_KIND;
      const ErrorClass = ERROR_BY_KIND[kind] ?? Error;
      throw new ErrorClass(String(ctx.payload.message ?? `${kind} failure on attempt ${ctx.job.attempt}`));
    }
    return { succeededOnAttempt: ctx.job.attempt };
  },
  verify(_ctx, output) {
    return digestOf(output);
  },
};

/** The actions a demo worker can run, by name. */
export const ACTIONS: Readonly<Record<string, Action>> = { record, sleep: sleepAction, fail };
