import { describe, expect, it } from 'vitest';
import { PlanSchema } from '../../src/saga/plan.js';
import { PlanInputSchema, planFromInput } from '../../src/saga/plan-input.js';
import { policyViolations } from '../../src/saga/policy.js';
import { TOOL_NAMES } from '../../src/world/catalogue.js';

/*
 * A step as a person writes it: a tool and its args, the rest from the
 * world's catalogue unless the step says otherwise.
 */

const ARGS: Record<string, Record<string, unknown>> = {
  read_file: { path: 'a' },
  write_file: { path: 'a', content: 'x' },
  create_branch: { name: 'b' },
  charge_customer: { customer: 'c', amount: 1 },
  send_email: { to: 'a@example.com', subject: 's' },
  publish_article: { slug: 's' },
};

describe('a step that names only its tool', () => {
  it.each([
    ['read_file', { has_side_effect: false, idempotent: true, reversible: true, retry_policy: 'auto', compensation: null, requires_approval: false }],
    [
      'write_file',
      {
        has_side_effect: true,
        idempotent: true,
        reversible: true,
        retry_policy: 'auto',
        compensation: 'restore_file_version',
        requires_approval: false,
      },
    ],
    [
      'create_branch',
      { has_side_effect: true, idempotent: true, reversible: true, retry_policy: 'auto', compensation: 'delete_branch', requires_approval: false },
    ],
    [
      'charge_customer',
      {
        has_side_effect: true,
        idempotent: false,
        reversible: false,
        retry_policy: 'reconcile_then_retry',
        compensation: null,
        requires_approval: true,
      },
    ],
    [
      'send_email',
      {
        has_side_effect: true,
        idempotent: false,
        reversible: false,
        retry_policy: 'reconcile_then_retry',
        compensation: null,
        requires_approval: false,
      },
    ],
    [
      'publish_article',
      {
        has_side_effect: true,
        idempotent: false,
        reversible: true,
        retry_policy: 'reconcile_then_retry',
        compensation: 'unpublish_article',
        requires_approval: false,
      },
    ],
  ])('%s: takes the rest from the catalogue, and passes policy', (tool, fields) => {
    const plan = planFromInput({ steps: [{ tool, args: ARGS[tool] }] });
    expect(plan.steps[0]).toEqual({ step_id: tool, tool, args: ARGS[tool], ...fields });
    expect(PlanSchema.parse(plan)).toEqual(plan);
    expect(policyViolations(plan)).toEqual([]);
  });

  it('covers every tool a step may name (the compensation tools are not steps)', () => {
    const steps = TOOL_NAMES.filter((name) => !/^(restore_file_version|delete_branch|unpublish_article)$/.test(name));
    expect(Object.keys(ARGS).sort()).toEqual([...steps].sort());
  });
});

describe('a step that says more', () => {
  it('overrides the catalogue field by field, and policy still judges what it claims', () => {
    const plan = planFromInput({ steps: [{ step_id: 'mail', tool: 'send_email', args: ARGS.send_email, idempotent: true, retry_policy: 'auto' }] });
    expect(plan.steps[0]).toMatchObject({ step_id: 'mail', idempotent: true, retry_policy: 'auto', reversible: false });
    expect(policyViolations(plan)).toEqual(['step mail: declared idempotent, but send_email is not']);
  });

  it('may name a tool the world lacks only by giving every field itself (policy then blocks it when it runs)', () => {
    const full = {
      tool: 'fax',
      has_side_effect: true,
      idempotent: false,
      reversible: false,
      retry_policy: 'manual_only',
      compensation: null,
      requires_approval: false,
    };
    expect(planFromInput({ steps: [full] }).steps[0]!.step_id).toBe('fax');
    const { idempotent: _, ...short } = full;
    const result = PlanInputSchema.safeParse({ steps: [short] });
    expect(result.success).toBe(false);
    expect(result.error!.issues).toEqual([
      expect.objectContaining({
        path: ['steps', 0, 'tool'],
        message: expect.stringMatching(/^no tool "fax" in the world's catalogue, so nothing to take idempotent from/),
      }),
    ]);
  });

  it('two steps of one tool need step_ids of their own', () => {
    const result = PlanInputSchema.safeParse({
      steps: [
        { tool: 'write_file', args: ARGS.write_file },
        { tool: 'write_file', args: ARGS.write_file },
      ],
    });
    expect(result.error!.issues).toEqual([
      expect.objectContaining({ path: ['steps', 1, 'step_id'], message: expect.stringContaining('step_id write_file is used twice') }),
    ]);
  });
});
