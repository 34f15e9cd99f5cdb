import * as z from 'zod';
import { CATALOGUE, TOOL_NAMES, type ToolMetadata, toolMetadata } from '../world/catalogue.js';
import { type Plan, type PlanStep, RETRY_POLICIES, STEP_ID } from './plan.js';

/*
 * A plan as a person writes it in a scenarios file. A step names a tool and
 * its arguments; what the world's catalogue already knows about that tool
 * (src/world/catalogue.ts) fills in the rest, and a field the step gives
 * overrides it (a plan that claims more than its tool has is how a scenario
 * shows policy blocking it). Once read, it is a plan like any other: every
 * field of every step set.
 */

/** The fields a step may leave to its tool's catalogue entry, with what each defaults to. */
export const STEP_DEFAULTS: Readonly<Record<Exclude<keyof PlanStep, 'tool' | 'args'>, string>> = {
  step_id: 'the tool name',
  has_side_effect: "the catalogue's has-side-effect",
  idempotent: "the catalogue's idempotent (by key)",
  reversible: "the catalogue's reversible",
  retry_policy: 'auto for an idempotent tool, else reconcile_then_retry',
  compensation: "the tool's compensation tool in the catalogue (null: none)",
  requires_approval: 'true for a critical tool (charge_customer), else false',
};

/** What a step of `tool` is unless it says otherwise: the catalogue's flags, the retry policy they allow, approval where policy demands it. */
export function catalogueStep(tool: ToolMetadata): Omit<PlanStep, 'step_id' | 'tool' | 'args'> {
  return {
    has_side_effect: tool.hasSideEffect,
    idempotent: tool.idempotent,
    reversible: tool.reversible,
    // An effect applied twice is harmless only for an idempotent tool; any other is looked up (reconciled) before a retry.
    retry_policy: tool.idempotent ? 'auto' : 'reconcile_then_retry',
    compensation: tool.compensationTool,
    // Policy blocks a critical tool without approval (src/saga/policy.ts), so that is the default; a high-risk one is a choice.
    requires_approval: tool.riskLevel === 'critical',
  };
}

const described = <T extends z.ZodType>(schema: T, field: keyof typeof STEP_DEFAULTS): T => schema.describe(`default: ${STEP_DEFAULTS[field]}`) as T;

/** One step as written: a tool (and its args), every other field optional. */
export const PlanStepInputSchema = z
  .strictObject({
    step_id: described(STEP_ID.optional(), 'step_id'),
    tool: z
      .string()
      .min(1)
      .describe(`a tool of the world's catalogue: ${TOOL_NAMES.filter((name) => CATALOGUE[name].compensationOf === null).join(', ')}`),
    args: z.record(z.string(), z.unknown()).default({}).describe("the tool's arguments"),
    has_side_effect: described(z.boolean().optional(), 'has_side_effect'),
    idempotent: described(z.boolean().optional(), 'idempotent'),
    reversible: described(z.boolean().optional(), 'reversible'),
    retry_policy: described(z.enum(RETRY_POLICIES).optional(), 'retry_policy'),
    compensation: described(z.string().min(1).nullable().optional(), 'compensation'),
    requires_approval: described(z.boolean().optional(), 'requires_approval'),
  })
  .transform((step, ctx): PlanStep => {
    const known = toolMetadata(step.tool);
    const { step_id, tool, args, ...given } = step;
    const set = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
    if (known) return { step_id: step_id ?? tool, tool, args, ...catalogueStep(known), ...set };
    // A tool the world does not have can still be written out in full (policy then blocks it when it runs).
    const missing = (Object.keys(STEP_DEFAULTS) as Array<keyof typeof STEP_DEFAULTS>).filter((f) => f !== 'step_id' && !(f in set));
    if (missing.length > 0) {
      ctx.issues.push({
        code: 'custom',
        input: step.tool,
        path: ['tool'],
        message:
          `no tool ${JSON.stringify(step.tool)} in the world's catalogue, so nothing to take ${missing.join(', ')} from; ` +
          `the tools are: ${TOOL_NAMES.join(', ')}`,
      });
      return z.NEVER;
    }
    return { step_id: step_id ?? tool, tool, args, ...set } as PlanStep;
  });

/** A plan as written: its steps, each completed from the catalogue; a step_id used twice (a tool named twice without one) refused. */
export const PlanInputSchema = z.strictObject({ steps: z.array(PlanStepInputSchema).min(1).max(50) }).superRefine((plan, ctx) => {
  const seen = new Set<string>();
  plan.steps.forEach((step, index) => {
    if (seen.has(step.step_id)) {
      ctx.addIssue({
        code: 'custom',
        path: ['steps', index, 'step_id'],
        message: `step_id ${step.step_id} is used twice (a step without a step_id is named after its tool: give each its own)`,
      });
    }
    seen.add(step.step_id);
  });
});

/** Reads a plan as written into a complete one; throws the zod error with every problem. */
export function planFromInput(value: unknown): Plan {
  return PlanInputSchema.parse(value);
}
