import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PlanSchema } from '../../src/saga/plan.js';
import { policyViolations } from '../../src/saga/policy.js';
import { loadScenarioFile, parseScenarioText } from '../../src/scenarios/load.js';
import { namedPlan, PLAN_LIBRARY } from '../../src/scenarios/plan-library.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';

/*
 * The library of plans a scenarios file uses without declaring them, and the
 * shipped drill that now uses it: its plans are, field for field, the ones it
 * declared in full before (copied below from the file as it was), so every
 * scenario runs the same jobs and is judged the same.
 */

/** The shipped scenarios.yaml's plans as it declared them, every field spelled out, before the library. */
const DECLARED_IN_FULL = `
plans:
  write-file:
    steps:
      - { step_id: write, tool: write_file, args: { path: src/billing.py, content: "fixed" }, has_side_effect: true, idempotent: true, reversible: true, retry_policy: auto, compensation: restore_file_version, requires_approval: false }
  send-email:
    steps:
      - { step_id: email, tool: send_email, args: { to: user@example.com, subject: receipt }, has_side_effect: true, idempotent: false, reversible: false, retry_policy: reconcile_then_retry, compensation: null, requires_approval: false }
  charge:
    steps:
      - { step_id: charge, tool: charge_customer, args: { customer: c_1024, amount: 199 }, has_side_effect: true, idempotent: false, reversible: false, retry_policy: reconcile_then_retry, compensation: null, requires_approval: true }
  write-then-email:
    steps:
      - { step_id: write, tool: write_file, args: { path: src/billing.py, content: "fixed" }, has_side_effect: true, idempotent: true, reversible: true, retry_policy: auto, compensation: restore_file_version, requires_approval: false }
      - { step_id: email, tool: send_email, args: { to: user@example.com, subject: done }, has_side_effect: true, idempotent: false, reversible: false, retry_policy: reconcile_then_retry, compensation: null, requires_approval: false }
  three-step:
    steps:
      - { step_id: write, tool: write_file, args: { path: src/billing.py, content: "fixed" }, has_side_effect: true, idempotent: true, reversible: true, retry_policy: auto, compensation: restore_file_version, requires_approval: false }
      - { step_id: charge, tool: charge_customer, args: { customer: c_1024, amount: 199 }, has_side_effect: true, idempotent: false, reversible: false, retry_policy: reconcile_then_retry, compensation: null, requires_approval: true }
      - { step_id: email, tool: send_email, args: { to: user@example.com, subject: receipt }, has_side_effect: true, idempotent: false, reversible: false, retry_policy: reconcile_then_retry, compensation: null, requires_approval: false }
  release:
    steps:
      - { step_id: branch, tool: create_branch, args: { name: release-1 }, has_side_effect: true, idempotent: true, reversible: true, retry_policy: auto, compensation: delete_branch, requires_approval: false }
      - { step_id: write, tool: write_file, args: { path: CHANGELOG.md, content: "v1" }, has_side_effect: true, idempotent: true, reversible: true, retry_policy: auto, compensation: restore_file_version, requires_approval: false }
      - { step_id: publish, tool: publish_article, args: { slug: release-1 }, has_side_effect: true, idempotent: false, reversible: true, retry_policy: reconcile_then_retry, compensation: unpublish_article, requires_approval: false }
  email-claimed-idempotent:
    steps:
      - { step_id: email, tool: send_email, args: { to: user@example.com, subject: receipt }, has_side_effect: true, idempotent: true, reversible: false, retry_policy: auto, compensation: null, requires_approval: false }
`;

const declared = PlanSchema.array().parse(Object.values((parse(DECLARED_IN_FULL) as { plans: Record<string, unknown> }).plans));
const declaredByName = Object.fromEntries(
  Object.keys((parse(DECLARED_IN_FULL) as { plans: Record<string, unknown> }).plans).map((name, i) => [name, declared[i]!]),
);

describe('the plan library', () => {
  it('holds every plan the shipped drill declared, the same to the last field (but the one it gets wrong on purpose)', () => {
    const names = Object.keys(declaredByName).filter((name) => name !== 'email-claimed-idempotent');
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) expect(PLAN_LIBRARY[name], name).toEqual(declaredByName[name]);
  });

  it('passes policy, plan by plan: a library plan is never blocked before it runs', () => {
    const plans = Object.entries(PLAN_LIBRARY);
    expect(plans.length).toBeGreaterThan(0);
    for (const [name, plan] of plans) expect(policyViolations(plan), name).toEqual([]);
  });

  it('gives the shipped drill the same plans, job by job, as when it declared them', () => {
    const shipped = resolveScenarios(loadScenarioFile('scenarios.yaml'), { seed: 1 });
    const asDeclared = resolveScenarios(parseScenarioText(readShippedWithPlansInFull(), 'scenarios.yaml (plans in full)'), { seed: 1 });
    expect(shipped.length).toBe(47);
    expect(shipped).toEqual(asDeclared);
  });

  it('is listed, plan by plan, in docs/scenarios.md', () => {
    const listed = [...readFileSync('docs/scenarios.md', 'utf8').matchAll(/^\| `([a-z-]+)` \| `/gm)].map((m) => m[1]);
    expect(listed).toEqual(Object.keys(PLAN_LIBRARY));
  });

  it("gives a file's own plan first, under a library name too", () => {
    const file = parseScenarioText(
      `version: 1
plans:
  write-file:
    steps: [{ tool: send_email, args: { to: a@example.com, subject: s } }]
scenarios:
  - { name: a, description: d, jobs: [{ plan: write-file, expect: done }, { plan: charge, expect: done }] }
`,
      'mine.yaml',
    );
    const [scenario] = resolveScenarios(file, { seed: 1 });
    expect(scenario!.jobs.map((job) => job.plan.steps.map((s) => s.step_id))).toEqual([['send_email'], ['charge']]);
    expect(namedPlan('charge', file.plans)).toBe(PLAN_LIBRARY.charge);
    expect(namedPlan('nope', file.plans)).toBeUndefined();
  });
});

/** The shipped file with its plans section as it was: every plan declared in full. */
function readShippedWithPlansInFull(): string {
  const text = readFileSync('scenarios.yaml', 'utf8');
  return text.replace(/^plans:\n[\s\S]*?(?=^scenarios:)/m, `${DECLARED_IN_FULL.trimStart()}\n`);
}
