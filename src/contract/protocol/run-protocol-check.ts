import { splitCommand } from '../../adapters/process/command-line.js';
import { type OptionalPart, offers } from '../../adapters/process/hello.js';
import { CheckContext } from './check-context.js';
import { type ProtocolStep, runSteps, type StepResult } from './protocol-check.js';
import { PROTOCOL_STEPS } from './steps/index.js';

/** Runs the conformance suite (or the steps named in `only`) against a command; every child and queue it made is gone after. */
export async function runProtocolCheck(command: string, only?: readonly string[]): Promise<StepResult[]> {
  const ctx = new CheckContext(splitCommand(command));
  const steps: readonly ProtocolStep[] = only ? PROTOCOL_STEPS.filter((s, i) => i === 0 || only.includes(s.name)) : PROTOCOL_STEPS;
  try {
    return await runSteps(ctx, steps, (part) => ctx.hello !== null && offers(ctx.hello, part as OptionalPart));
  } finally {
    ctx.dispose();
  }
}

/** The step names, for --only. */
export const PROTOCOL_STEP_NAMES = PROTOCOL_STEPS.map((s) => s.name);
