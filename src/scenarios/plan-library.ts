import type { Plan } from '../saga/plan.js';
import { planFromInput } from '../saga/plan-input.js';

/*
 * Plans a scenarios file may name without declaring them: one for every kind
 * of effect the world has (idempotent, not idempotent but looked up, neither,
 * reversible, needing approval) and the sagas the shipped drill runs. A
 * file's own `plans:` come first: a plan it declares under one of these names
 * is the one its jobs get. Each step names its tool; the catalogue gives the
 * rest (src/saga/plan-input.ts).
 */

const write = { step_id: 'write', tool: 'write_file', args: { path: 'src/billing.py', content: 'fixed' } };
const charge = { step_id: 'charge', tool: 'charge_customer', args: { customer: 'c_1024', amount: 199 } };
const email = (subject: string) => ({ step_id: 'email', tool: 'send_email', args: { to: 'user@example.com', subject } });
const branch = { step_id: 'branch', tool: 'create_branch', args: { name: 'release-1' } };
const publish = { step_id: 'publish', tool: 'publish_article', args: { slug: 'release-1' } };

/** The library, by name: what each is for in its comment. */
export const PLAN_LIBRARY: Readonly<Record<string, Plan>> = {
  // An idempotent, reversible write: repeated by key, undone by restoring the file.
  'write-file': planFromInput({ steps: [write] }),
  // An email: not idempotent, not reversible, and no record to look up (a lost answer goes to review).
  'send-email': planFromInput({ steps: [email('receipt')] }),
  // A charge: not idempotent, looked up by key, and critical (it waits for a person's approval).
  charge: planFromInput({ steps: [charge] }),
  'write-then-email': planFromInput({ steps: [write, email('done')] }),
  'three-step': planFromInput({ steps: [write, charge, email('receipt')] }),
  // A saga to undo in reverse: a branch, a file, an article (reversible, not idempotent).
  release: planFromInput({ steps: [branch, { ...write, args: { path: 'CHANGELOG.md', content: 'v1' } }, publish] }),
  // A reversible step that is not idempotent, with a step after it: what a compensation of that kind of effect needs.
  'publish-then-email': planFromInput({ steps: [publish, email('receipt')] }),
};

/** The plan a file's job names: the file's own first, then the library's; undefined for neither. */
export function namedPlan<P>(name: string, filePlans: Readonly<Record<string, P>>): P | Plan | undefined {
  return Object.hasOwn(filePlans, name) ? filePlans[name] : Object.hasOwn(PLAN_LIBRARY, name) ? PLAN_LIBRARY[name] : undefined;
}
