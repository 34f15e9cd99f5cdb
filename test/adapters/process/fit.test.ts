import { describe, expect, it } from 'vitest';
import { fitChild } from '../../../src/adapters/process/fit.js';
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
