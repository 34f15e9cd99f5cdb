import * as z from 'zod';
import { InputError } from '../kernel/errors.js';

/*
 * The transaction sketch's transactional plan: a job is a list of steps, and each step says
 * up front what it does to the world (side effect, idempotent, reversible), how
 * it may be retried, what undoes it, and whether a person must approve it.
 * Validated at enqueue, so a worker only ever runs a plan that makes sense.
 */

export const RETRY_POLICIES = ['auto', 'reconcile_then_retry', 'manual_only'] as const;

/** What a step's id may be: it goes into keys and file names. */
export const STEP_ID = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (at most 64)');

/** One step of a plan, with the transaction sketch's field names. */
export const PlanStepSchema = z
  .object({
    step_id: STEP_ID,
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()).default({}),
    has_side_effect: z.boolean(),
    idempotent: z.boolean(),
    reversible: z.boolean(),
    retry_policy: z.enum(RETRY_POLICIES),
    /** The tool that undoes this step, or null when nothing can. */
    compensation: z.string().min(1).nullable(),
    requires_approval: z.boolean(),
  })
  .strict();

/** A whole plan: steps run in order, compensated in reverse. */
export const PlanSchema = z
  .object({ steps: z.array(PlanStepSchema).min(1).max(50) })
  .strict()
  .superRefine((plan, ctx) => {
    const seen = new Set<string>();
    plan.steps.forEach((step, index) => {
      if (seen.has(step.step_id)) {
        ctx.addIssue({ code: 'custom', path: ['steps', index, 'step_id'], message: `step_id ${step.step_id} is used twice` });
      }
      seen.add(step.step_id);
    });
  });

export type PlanStep = z.infer<typeof PlanStepSchema>;
export type Plan = z.infer<typeof PlanSchema>;

/** Thrown for a plan that does not validate: every issue, with its path. */
export class PlanError extends InputError {
  readonly code = 'QD_BAD_PLAN';
  constructor(readonly issues: ReadonlyArray<{ path: string; message: string }>) {
    super(`invalid plan:\n${issues.map((i) => `  ${i.path || '(plan)'}: ${i.message}`).join('\n')}`);
  }
}

/** Validates a plan, throwing PlanError with every problem at once. */
export function parsePlan(value: unknown): Plan {
  const result = PlanSchema.safeParse(value);
  if (result.success) return result.data;
  throw new PlanError(result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })));
}

/** The idempotency key of a step's call to the world: stable across attempts, workers and restarts. */
export function stepKey(jobKey: string, stepId: string): string {
  return `${jobKey.slice(0, 16)}:${stepId}`;
}

/** The key of the call that compensates a step. */
export function compensationKey(jobKey: string, stepId: string): string {
  return `${stepKey(jobKey, stepId)}:compensate`;
}
