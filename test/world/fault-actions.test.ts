import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectFields } from '../../src/kernel/action-fields.js';
import { ScenarioFileSchema } from '../../src/scenarios/schema.js';
import { WORLD_FAULT_ACTION_NAMES, WORLD_FAULT_ACTIONS, worldFaultAction } from '../../src/world/fault-actions/index.js';
import { parseFaultSpec } from '../../src/world/faults.js';

/*
 * The registry of world fault actions: each is one file (its API shape, its
 * scenario fields, its phrase, what the world does, how explore draws it), and
 * the world's fault schema and the scenario schema are derived from it.
 */

function fileWith(fault: Record<string, unknown>) {
  const step = {
    step_id: 'write',
    tool: 'write_file',
    args: { path: 'a', content: 'b' },
    has_side_effect: true,
    idempotent: true,
    reversible: true,
    retry_policy: 'auto',
    compensation: 'restore_file_version',
    requires_approval: false,
  };
  return {
    version: 1,
    plans: {},
    scenarios: [{ name: 'one', description: 'd', jobs: [{ plan: { steps: [step] }, expect: 'any' }], faults: [fault] }],
  };
}

describe('the world fault actions', () => {
  it('are each one entry, named uniquely, with a summary, and their fields mean one thing across actions', () => {
    expect(WORLD_FAULT_ACTION_NAMES).toEqual(WORLD_FAULT_ACTIONS.map((a) => a.name));
    expect(new Set(WORLD_FAULT_ACTION_NAMES).size).toBe(WORLD_FAULT_ACTIONS.length);
    for (const action of WORLD_FAULT_ACTIONS) {
      expect(action.summary.length, action.name).toBeGreaterThan(10);
      expect(worldFaultAction(action.name)).toBe(action);
    }
    expect(() => collectFields(WORLD_FAULT_ACTIONS)).not.toThrow();
  });

  it.each(WORLD_FAULT_ACTIONS.map((a) => [a.name, a] as const))(
    '%s: what explore draws is a valid scenario fault, and what it makes of it is a fault the world accepts',
    (_name, action) => {
      for (const { times, ...fields } of fc.sample(action.explore!(fc), { numRuns: 20, seed: 2 })) {
        const fault = { world: { step: 'write' }, action: action.name, times, ...fields };
        const parsed = ScenarioFileSchema.safeParse(fileWith(fault));
        expect(parsed.success, parsed.success ? '' : parsed.error.message).toBe(true);
        const spec = parseFaultSpec({ match: { key: 'k' }, action: action.fromScenario(fields), times });
        expect(spec.action.type).toBe(action.name);
        expect(action.describe(spec.action as never)).toMatch(new RegExp(`^${action.name}`));
      }
    },
  );

  it('the world refuses an action it does not know, or one missing what it needs, naming the path', () => {
    expect(() => parseFaultSpec({ action: { type: 'explode' } })).toThrow(/action/);
    expect(() => parseFaultSpec({ action: { type: 'fail' } })).toThrow(/action\.status/);
    expect(() => parseFaultSpec({ action: { type: 'delay', ms: 5 } })).toThrow(/action\.applied/);
  });
});
