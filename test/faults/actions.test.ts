import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FiringControl } from '../../src/faults/action.js';
import { actionFields, argOf } from '../../src/faults/action-fields.js';
import { FAULT_ACTION_NAMES, POINT_FAULT_ACTIONS, pointFaultAction } from '../../src/faults/actions/index.js';
import { ScenarioFileSchema } from '../../src/scenarios/schema.js';

/*
 * The registry of fault actions: each action is one file holding all there is
 * to know of it, and every list of actions (the scenario schema, explore, the
 * exhaustive matrix, the docs) is derived from it. These tests hold each
 * action to being complete and each derived list to being the registry's.
 */

/** A scenarios file with one scenario whose only fault is `fault`. */
function fileWith(fault: Record<string, unknown>) {
  return {
    version: 1,
    plans: {},
    scenarios: [
      {
        name: 'one',
        description: 'one fault',
        jobs: [
          {
            plan: {
              steps: [
                {
                  step_id: 's',
                  tool: 'read_file',
                  args: { path: 'a' },
                  has_side_effect: false,
                  idempotent: true,
                  reversible: true,
                  retry_policy: 'auto',
                  compensation: null,
                  requires_approval: false,
                },
              ],
            },
            expect: 'any',
          },
        ],
        faults: [fault],
      },
    ],
  };
}

/** A controller stand-in that records what an action does when it fires. */
function recordingControl(): FiringControl & { done: string[] } {
  const done: string[] = [];
  return {
    done,
    answer: (answer) => done.push(`answer ${JSON.stringify(answer)}`),
    signal: (signal) => done.push(`signal ${signal}`),
    hold: async (ms) => {
      done.push(`hold ${ms}`);
    },
    holdUntilClaimedAgain: async (ms) => {
      done.push(`hold until claimed again ${ms}`);
      return 'claimed';
    },
    claimedAgain: async (ms) => {
      done.push(`until claimed again ${ms}`);
      return 'claimed';
    },
    active: true,
    resumed: () => done.push('resumed'),
    restartServer: async () => {
      done.push('restart server');
      return 'restarted';
    },
    network: () => ({
      partition: async (ms) => {
        done.push(`partition ${ms}`);
      },
      heal: () => done.push('heal'),
      setLatency: (ms, jitterMs) => done.push(`latency ${ms} ${jitterMs}`),
      reset: () => done.push('reset'),
      dropReply: (target, rule) => done.push(`drop reply ${JSON.stringify(target)} ${rule}`),
    }),
  };
}

describe('the fault actions', () => {
  it('are each one entry, named uniquely, with a summary; the names are the registry’s, in its order', () => {
    expect(new Set(FAULT_ACTION_NAMES).size).toBe(POINT_FAULT_ACTIONS.length);
    expect(FAULT_ACTION_NAMES).toEqual(POINT_FAULT_ACTIONS.map((a) => a.name));
    for (const action of POINT_FAULT_ACTIONS) {
      expect(action.summary.length, action.name).toBeGreaterThan(10);
      expect(pointFaultAction(action.name)).toBe(action);
    }
    expect(pointFaultAction('no-such-action')).toBeUndefined();
    // A field name means one thing for every action that takes it.
    expect(() => actionFields()).not.toThrow();
  });

  it.each(POINT_FAULT_ACTIONS.map((a) => [a.name, a] as const))(
    '%s: its exhaustive cells and its explore draws are valid scenario faults that resolve to rules it accepts',
    (_name, action) => {
      const samples = [
        ...action.exhaustive.map((cell) => cell.fields),
        ...(action.explore ? fc.sample(action.explore(fc), { numRuns: 20, seed: 1 }) : []),
      ];
      for (const fields of samples) {
        const fault = { at: 'after_claim', action: action.name, ...fields };
        const parsed = ScenarioFileSchema.safeParse(fileWith(fault));
        expect(parsed.success, `${JSON.stringify(fault)}: ${parsed.success ? '' : parsed.error.message}`).toBe(true);
        const arg = argOf(action, fault);
        expect(action.checkArg(arg)).toBeNull();
        expect(action.resolve(arg, { id: 'r1', point: 'after_claim' }).type).toBe(action.name);
      }
    },
  );

  it('the scenario schema names every action, refuses a missing required field and a field the action does not take', () => {
    const refused = (fault: Record<string, unknown>) => {
      const parsed = ScenarioFileSchema.safeParse(fileWith(fault));
      return parsed.success ? [] : parsed.error.issues.map((i) => `${String(i.path.slice(-1)[0])}: ${i.message}`);
    };
    for (const action of POINT_FAULT_ACTIONS) {
      for (const [name, field] of Object.entries(action.fields)) {
        if (field.required)
          expect(refused({ at: 'after_claim', action: action.name }), `${action.name} without ${name}`).toContainEqual(
            expect.stringMatching(new RegExp(`^${name}: ${action.name} needs ${name}`)),
          );
      }
    }
    expect(refused({ at: 'after_claim', action: 'error' })).toEqual([
      'kind: error needs kind: one of transient, permanent, unknown_outcome, policy, business',
    ]);
    expect(refused({ at: 'after_claim', action: 'crash', ms: 5 })).toEqual(['ms: crash takes no ms']);
    expect(refused({ at: 'after_claim', action: 'delay', ms: 5, kind: 'transient' })).toEqual(['kind: delay takes no kind; it takes ms']);
    expect(refused({ at: 'after_claim', action: 'explode' })).not.toEqual([]);
  });

  it('fire: what the harness does at the point, and what the child is told', async () => {
    const fired = async (name: string, arg?: Record<string, unknown>) => {
      const action = pointFaultAction(name)!;
      const control = recordingControl();
      await action.fire(action.resolve(arg, { id: 'r1', point: 'after_write' }) as never, control);
      return control.done;
    };
    expect(await fired('crash')).toEqual(['signal SIGKILL']);
    expect(await fired('pause', { ms: 900 })).toEqual(['hold 900', 'resumed', 'answer {"action":"continue"}']);
    expect(await fired('exit')).toEqual(['answer {"action":"exit","code":1}']);
    expect(await fired('delay', { ms: 20 })).toEqual(['answer {"action":"delay","ms":20}']);
    expect(await fired('hang')).toEqual(['answer {"action":"hang"}']);
    expect(await fired('block', { ms: 900 })).toEqual(['answer {"action":"block","ms":900}']);
    expect(await fired('restart_server')).toEqual(['restart server', 'resumed', 'answer {"action":"continue"}']);
    // The process goes on at once while cut off; the hold ends when the partition heals.
    expect(await fired('partition', { ms: 1500 })).toEqual(['partition 1500', 'answer {"action":"continue"}', 'resumed']);
    expect(await fired('partition', { ms: 9000, until: 'claimed_again' })).toEqual([
      'partition 9000',
      'answer {"action":"continue"}',
      'until claimed again 9000',
      'heal',
      'resumed',
    ]);
    expect(await fired('latency', { ms: 300, jitter_ms: 50 })).toEqual(['latency 300 50', 'answer {"action":"continue"}']);
    expect(await fired('latency', { ms: 300 })).toEqual(['latency 300 0', 'answer {"action":"continue"}']);
    expect(await fired('latency', { ms: 300, for_ms: 0 })).toEqual(['latency 300 0', 'answer {"action":"continue"}']);
    expect(await fired('reset')).toEqual(['reset', 'answer {"action":"continue"}']);
    expect(await fired('drop_reply', { command: ' COMMIT ', within: 'done' })).toEqual([
      'drop reply {"command":"COMMIT","within":"done"} r1',
      'answer {"action":"continue"}',
    ]);
    expect(await fired('drop_reply', { write: 'complete' })).toEqual(['drop reply {"write":"complete"} r1', 'answer {"action":"continue"}']);
    expect(await fired('error', { kind: 'permanent' })).toEqual([
      'answer {"action":"error","kind":"permanent","message":"injected permanent error at after_write (fault rule r1)"}',
    ]);
  });

  it('every answer an action sends is one it recognises as its own, and a malformed one is not', async () => {
    for (const action of POINT_FAULT_ACTIONS) {
      const control = recordingControl();
      const arg = argOf(action, { ...(action.exhaustive[0]?.fields ?? {}), ms: 5, kind: 'transient', command: 'COMMIT' });
      await action.fire(action.resolve(arg, { id: 'r', point: 'after_claim' }) as never, control);
      for (const line of control.done.filter((d) => d.startsWith('answer '))) {
        const answer = JSON.parse(line.slice('answer '.length)) as Record<string, unknown>;
        if (answer.action !== 'continue') expect(pointFaultAction(answer.action)!.isAnswer(answer), line).toBe(true);
      }
    }
    expect(pointFaultAction('delay')!.isAnswer({ action: 'delay', ms: -1 })).toBe(false);
    expect(pointFaultAction('exit')!.isAnswer({ action: 'exit', code: 'x' })).toBe(false);
    expect(pointFaultAction('error')!.isAnswer({ action: 'error', kind: 'weird', message: 'm' })).toBe(false);
  });
});
