import type { ChildHello } from '../../adapters/process/hello.js';
import type { CheckContext } from './check-context.js';
import { StepFailure } from './session.js';

/** One step of the conformance suite: what it checks, and whether it needs the hello (every step but the first). */
export interface ProtocolStep {
  name: string;
  /** One line: what the step holds the child to. */
  describe: string;
  /** An optional part of the contract: the step is skipped when the hello does not offer it. */
  part?: 'manual' | 'takeover' | 'compensation' | 'human' | 'saga';
  /** The protocol version that brought what the step checks: skipped for a child that speaks an older one. */
  since?: 2;
  /** Why the step does not apply to a child whose hello says so (a queue that states it does not fence), or null. */
  skipWhen?(hello: ChildHello): string | null;
  run(ctx: CheckContext): Promise<void>;
}

/** How one step came out: passed, failed (naming the message at fault, and why), or skipped (and why). */
export interface StepResult {
  name: string;
  status: 'pass' | 'fail' | 'skip';
  /** For a failure: the protocol message that was wrong or missing. */
  about?: string;
  detail: string;
  ms: number;
}

/**
 * Runs the steps in order, each with the children it starts closed after it.
 * A step that cannot even start because the hello failed is skipped; a step
 * for an optional part the hello does not offer is skipped with that reason.
 */
export async function runSteps(ctx: CheckContext, steps: readonly ProtocolStep[], offers: (part: string) => boolean): Promise<StepResult[]> {
  const results: StepResult[] = [];
  for (const [index, step] of steps.entries()) {
    const started = Date.now();
    if (index > 0 && !ctx.hello) {
      results.push({ name: step.name, status: 'skip', detail: 'the child did not say hello', ms: 0 });
      continue;
    }
    if (step.since !== undefined && (ctx.hello?.protocol ?? 1) < step.since) {
      results.push({
        name: step.name,
        status: 'skip',
        detail: `the child speaks protocol ${ctx.hello?.protocol}; this is protocol ${step.since}'s`,
        ms: 0,
      });
      continue;
    }
    if (step.part && !offers(step.part)) {
      results.push({ name: step.name, status: 'skip', detail: `the hello does not offer the ${step.part} ops`, ms: 0 });
      continue;
    }
    const notApplicable = ctx.hello ? (step.skipWhen?.(ctx.hello) ?? null) : null;
    if (notApplicable !== null) {
      results.push({ name: step.name, status: 'skip', detail: notApplicable, ms: 0 });
      continue;
    }
    let failure: unknown = null;
    try {
      await step.run(ctx);
    } catch (error) {
      failure = error;
    }
    try {
      await ctx.endStep();
    } catch (error) {
      failure ??= error;
    }
    const ms = Date.now() - started;
    if (failure === null) results.push({ name: step.name, status: 'pass', detail: step.describe, ms });
    else if (failure instanceof StepFailure) results.push({ name: step.name, status: 'fail', about: failure.about, detail: failure.message, ms });
    else
      results.push({ name: step.name, status: 'fail', about: '(check)', detail: failure instanceof Error ? failure.message : String(failure), ms });
  }
  return results;
}
