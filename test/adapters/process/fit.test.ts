import { describe, expect, it } from 'vitest';
import { fitChild, parseFitAnswer } from '../../../src/adapters/process/fit.js';
import { type ChildHello, OPTIONAL_PARTS, REQUIRED_OPS } from '../../../src/adapters/process/hello.js';
import type { DrillDemands } from '../../../src/port/adapter.js';
import { drillDemands } from '../../helpers/drill-demands.js';

const ALL_OPS = new Set<string>([...REQUIRED_OPS, ...Object.values(OPTIONAL_PARTS).flat()]);

function hello(overrides: Partial<ChildHello> = {}): ChildHello {
  return {
    protocol: 1,
    locatorKind: 'file',
    needs: [],
    name: 'q',
    version: '1',
    description: 'a queue',
    capabilities: {
      evidence: { history: true, refusals: true, epoch: true, holder: true, digest: true, review: true, 'retry-policy': true, renewals: true },
      fencing: true,
      sagaStore: 'in-queue',
      takeover: 'coordinator',
      compensation: true,
      clock: 'caller',
    },
    ops: ALL_OPS,
    options: {},
    limits: { minLeaseMs: 100, maxAttempts: 5 },
    ...overrides,
  };
}

const DEMANDS: DrillDemands = drillDemands();

describe('whether a child can run a drill, from its hello', () => {
  it('maps the demands onto the child when it can', () => {
    const fit = fitChild(hello(), 'python3 q.py', DEMANDS);
    expect(fit).toMatchObject({ ok: true, mapping: { command: 'python3 q.py', lease_ms: 400, saga_store: 'in-queue', clock: 'caller' } });
  });

  it.each([
    ['a lease below its minimum', hello(), { leaseMs: 50 }, /keeps leases of 100 ms or more; the drill asks for 50 ms/],
    ['more attempts than it allows', hello(), { maxAttempts: [3, 9] }, /at most 5 attempts a job; the drill asks for 9/],
    ['an approval without requeue_from_review', hello({ ops: new Set(REQUIRED_OPS) }), { approval: true }, /cannot send a job back from review/],
    ['a coordinator without the takeover ops', hello({ ops: new Set(REQUIRED_OPS) }), {}, /does not answer its ops/],
    [
      'a tool it cannot run',
      hello({ limits: { minLeaseMs: 1, maxAttempts: 9, tools: ['send_email'] } }),
      {},
      /cannot run a plan that calls write_file/,
    ],
  ])('is not judged for %s, with the reason', (_what, said, demands, reason) => {
    expect(fitChild(said, 'q', { ...DEMANDS, ...demands })).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });
});

describe("a protocol 2 child's own answer to fit", () => {
  it('carries its mapping, and the watchdog and deadline its own recovery needs', () => {
    expect(parseFitAnswer({ ok: true, mapping: { acks_late: false } })).toEqual({ ok: true, mapping: { acks_late: false } });
    expect(parseFitAnswer({ ok: true, at_least: { no_progress_ms: 112_000, timeout_ms: 132_000, why: 'kombu restores it' } })).toEqual({
      ok: true,
      mapping: {},
      atLeast: { noProgressMs: 112_000, timeoutMs: 132_000, why: 'kombu restores it' },
    });
  });

  it('is refused when at_least says no why, or a wait that is not a count', () => {
    expect(() => parseFitAnswer({ ok: true, at_least: { timeout_ms: 5 } })).toThrow(/why/);
    expect(() => parseFitAnswer({ ok: true, at_least: { timeout_ms: -1, why: 'x' } })).toThrow(/timeout_ms/);
  });
});
