import type { Plan } from '../saga/plan.js';

type Step = Plan['steps'][number];

const step = (s: Omit<Step, 'args'> & { args: Record<string, unknown> }): Step => s;

const write = step({
  step_id: 'write',
  tool: 'write_file',
  args: { path: 'src/billing.py', content: 'fixed' },
  has_side_effect: true,
  idempotent: true,
  reversible: true,
  retry_policy: 'auto',
  compensation: 'restore_file_version',
  requires_approval: false,
});
const charge = step({
  step_id: 'charge',
  tool: 'charge_customer',
  args: { customer: 'c_1024', amount: 199 },
  has_side_effect: true,
  idempotent: false,
  reversible: false,
  retry_policy: 'reconcile_then_retry',
  compensation: null,
  requires_approval: true,
});
const email = step({
  step_id: 'email',
  tool: 'send_email',
  args: { to: 'user@example.com', subject: 'receipt' },
  has_side_effect: true,
  idempotent: false,
  reversible: false,
  retry_policy: 'reconcile_then_retry',
  compensation: null,
  requires_approval: false,
});
const branch = step({
  step_id: 'branch',
  tool: 'create_branch',
  args: { name: 'release-1' },
  has_side_effect: true,
  idempotent: true,
  reversible: true,
  retry_policy: 'auto',
  compensation: 'delete_branch',
  requires_approval: false,
});
const publish = step({
  step_id: 'publish',
  tool: 'publish_article',
  args: { slug: 'release-1' },
  has_side_effect: true,
  idempotent: false,
  reversible: true,
  retry_policy: 'reconcile_then_retry',
  compensation: 'unpublish_article',
  requires_approval: false,
});

/** The plans an explored schedule draws its jobs from: every kind of step the world has. */
export const EXPLORE_PLANS: Readonly<Record<string, Plan>> = {
  'write-file': { steps: [write] },
  'send-email': { steps: [email] },
  charge: { steps: [charge] },
  'write-then-email': { steps: [write, email] },
  'three-step': { steps: [write, charge, email] },
  release: { steps: [branch, write, publish] },
  // A reversible step that is not idempotent, with a step after it: what a compensation of that kind of effect needs.
  'publish-then-email': { steps: [publish, email] },
};

export type ExplorePlanName = keyof typeof EXPLORE_PLANS;
