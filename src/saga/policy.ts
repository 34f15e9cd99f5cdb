import { toolMetadata } from '../world/catalogue.js';
import type { Plan } from './plan.js';

/**
 * The policy a plan must meet before any step runs (the transaction sketch: policy errors
 * are blocked, not retried). A step may not claim more safety than its tool
 * has: calling a non-idempotent tool "idempotent" would invite blind retries,
 * and a compensation the tool does not have would be a saga that cannot undo.
 * Critical tools need a person's approval.
 */
export function policyViolations(plan: Plan): string[] {
  const problems: string[] = [];
  for (const step of plan.steps) {
    const at = `step ${step.step_id}`;
    const tool = toolMetadata(step.tool);
    if (!tool) {
      problems.push(`${at}: unknown tool ${JSON.stringify(step.tool)}`);
      continue;
    }
    if (tool.compensationOf !== null) problems.push(`${at}: ${tool.name} is a compensation tool, not a step`);
    if (step.has_side_effect !== tool.hasSideEffect)
      problems.push(`${at}: has_side_effect is ${step.has_side_effect}, ${tool.name} says ${tool.hasSideEffect}`);
    if (step.idempotent && !tool.idempotent) problems.push(`${at}: declared idempotent, but ${tool.name} is not`);
    if (step.reversible && !tool.reversible) problems.push(`${at}: declared reversible, but ${tool.name} is not`);
    if (step.compensation !== tool.compensationTool) {
      problems.push(`${at}: compensation ${JSON.stringify(step.compensation)}, ${tool.name}'s is ${JSON.stringify(tool.compensationTool)}`);
    }
    if (tool.riskLevel === 'critical' && !step.requires_approval) problems.push(`${at}: ${tool.name} is critical and needs requires_approval`);
    const args = tool.args.safeParse(step.args);
    if (!args.success) problems.push(`${at}: args: ${args.error.issues.map((i) => `${i.path.join('.') || '(args)'} ${i.message}`).join('; ')}`);
  }
  return problems;
}
