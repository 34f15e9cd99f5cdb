import { describe, expect, it } from 'vitest';
import { afterExit } from '../../../src/drill/runner/restart-decision.js';

describe('afterExit: the restart rule', () => {
  const rule = { after_ms: 20, max: 2 } as const;
  it.each([
    ['a producer that finished its part', { kind: 'producer', restarts: 0 }, 0, rule, { kind: 'finished' }],
    ['a producer that was killed', { kind: 'producer', restarts: 0 }, undefined, rule, { kind: 'restart', at: 1_020 }],
    ['a producer that failed', { kind: 'producer', restarts: 1 }, 1, rule, { kind: 'restart', at: 1_020 }],
    ['a worker that exited 0 (it is still meant to work)', { kind: 'worker', restarts: 0 }, 0, rule, { kind: 'restart', at: 1_020 }],
    ['a killed coordinator', { kind: 'coordinator', restarts: 1 }, undefined, rule, { kind: 'restart', at: 1_020 }],
    ['a worker with its restarts used up', { kind: 'worker', restarts: 2 }, undefined, rule, { kind: 'not-restarted', why: '2 restarts used' }],
    ['anything, with restarts off', { kind: 'worker', restarts: 0 }, undefined, false, { kind: 'not-restarted', why: 'restarts off' }],
  ] as const)('%s', (_what, role, exitCode, restart, expected) => {
    expect(afterExit(role, { exitCode }, restart, 1_000)).toEqual(expected);
  });
});
