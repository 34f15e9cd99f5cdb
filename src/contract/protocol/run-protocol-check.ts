import { splitCommand } from '../../adapters/process/command-line.js';
import { type OptionalPart, offers } from '../../adapters/process/hello.js';
import { CheckContext } from './check-context.js';
import { type ProtocolStep, runSteps, type StepResult } from './protocol-check.js';
import { answerTimeoutAt } from './session.js';
import { PROTOCOL_STEPS } from './steps/index.js';

/** How the suite is run. */
export interface ProtocolCheckOptions {
  /** Only these steps (hello always runs). @default every step */
  only?: readonly string[];
  /** Every answer and delivery is waited for ANSWER_TIMEOUT_MS times this (never less than ANSWER_TIMEOUT_MS): 1 on a quiet machine. @default 1 */
  timeScale?: number;
}

/** Runs the conformance suite (or the steps named in `only`) against a command; every child and queue it made is gone after. */
export async function runProtocolCheck(command: string, options: ProtocolCheckOptions = {}): Promise<StepResult[]> {
  const ctx = new CheckContext(splitCommand(command), answerTimeoutAt(options.timeScale ?? 1));
  const only = options.only;
  const steps: readonly ProtocolStep[] = only ? PROTOCOL_STEPS.filter((s, i) => i === 0 || only.includes(s.name)) : PROTOCOL_STEPS;
  try {
    return await runSteps(ctx, steps, (part) => ctx.hello !== null && offers(ctx.hello, part as OptionalPart));
  } finally {
    await ctx.dispose();
  }
}

/** The step names, for --only. */
export const PROTOCOL_STEP_NAMES = PROTOCOL_STEPS.map((s) => s.name);
