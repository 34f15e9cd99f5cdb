import { describe, expect, it } from 'vitest';
import { describeUnfired, FaultPlan, FaultPlanError, type FaultRule } from '../../src/faults/fault-plan.js';
import type { FailpointContext } from '../../src/faults/points.js';
import { seededRandom } from '../../src/kernel/random.js';

const at = (point: FailpointContext['point'], rest: Partial<Omit<FailpointContext, 'point'>> = {}): FailpointContext => ({
  point,
  worker: 'w1',
  ...rest,
});

/** The id of the rule that fired at each hit, or '-' for continue. */
function decisions(rules: FaultRule[], hits: FailpointContext[], seed = 1): string[] {
  const plan = new FaultPlan(rules, seededRandom(seed));
  return hits.map((hit) => plan.decide(hit)?.rule.id ?? '-');
}

describe('FaultPlan.decide', () => {
  const cases: Array<{ name: string; rules: FaultRule[]; hits: FailpointContext[]; expected: string[] }> = [
    {
      name: 'a rule fires at its point only',
      rules: [{ id: 'c', point: 'after_write', action: 'crash' }],
      hits: [at('after_claim'), at('after_write'), at('after_verify')],
      expected: ['-', 'c', '-'],
    },
    {
      name: 'first N: only the first N matching hits fire',
      rules: [{ id: 'e', point: 'after_write', action: 'error', arg: { kind: 'transient' }, first: 2 }],
      hits: [at('after_write'), at('after_claim'), at('after_write'), at('after_write'), at('after_write')],
      expected: ['e', '-', 'e', '-', '-'],
    },
    {
      name: 'where.worker',
      rules: [{ id: 'c', point: 'after_claim', action: 'crash', where: { worker: 'w2' } }],
      hits: [at('after_claim'), at('after_claim', { worker: 'w2' }), at('after_claim', { worker: 'w3' })],
      expected: ['-', 'c', '-'],
    },
    {
      name: 'where.attempt: a non-matching hit does not use up first',
      rules: [{ id: 'c', point: 'after_write', action: 'crash', where: { attempt: 2 }, first: 1 }],
      hits: [at('after_write', { attempt: 1 }), at('after_write', { attempt: 2 }), at('after_write', { attempt: 2 })],
      expected: ['-', 'c', '-'],
    },
    {
      name: 'where.step, where.tool and where.jobId together',
      rules: [{ id: 'h', point: 'before_call', action: 'hang', where: { step: 'charge', tool: 'payments', jobId: '7' } }],
      hits: [
        at('before_call', { step: 'charge', tool: 'payments', jobId: '6' }),
        at('before_call', { step: 'email', tool: 'payments', jobId: '7' }),
        at('before_call', { step: 'charge', tool: 'mail', jobId: '7' }),
        at('before_call', { step: 'charge', tool: 'payments', jobId: '7' }),
        at('before_call', { step: 'charge', jobId: '7' }),
      ],
      expected: ['-', '-', '-', 'h', '-'],
    },
    {
      // Job ids are the queue's text: '7' is not '07', nor job 7 of another queue's numbering.
      name: 'where.jobId matches the id as text, exactly',
      rules: [{ id: 'j', point: 'after_claim', action: 'crash', where: { jobId: '7' } }],
      hits: [at('after_claim', { jobId: '07' }), at('after_claim', { jobId: '7 ' }), at('after_claim'), at('after_claim', { jobId: '7' })],
      expected: ['-', '-', '-', 'j'],
    },
    {
      name: 'where.jobId with a non-numeric id (a UUID, as other queues give)',
      rules: [{ id: 'u', point: 'after_write', action: 'crash', where: { jobId: '0b9e3c1e-5c1a-4b8e-9d55-6f2f3f0a9a11' } }],
      hits: [at('after_write', { jobId: '0b9e3c1e-5c1a-4b8e-9d55-6f2f3f0a9a11' }), at('after_write', { jobId: '1' })],
      expected: ['u', '-'],
    },
    {
      // A scenario names a job by its key: at a producer's enqueue the context's key is the job's.
      name: "where.jobKey: the job's key, at a worker's points and at a producer's enqueue",
      rules: [
        { id: 'k', point: 'after_claim', action: 'crash', where: { jobKey: 'K1' } },
        { id: 'q', point: 'enqueue', action: 'exit', where: { jobKey: 'K1' } },
      ],
      hits: [
        at('after_claim', { jobKey: 'K2', jobId: '1' }),
        at('after_claim', { jobId: '1' }),
        at('after_claim', { jobKey: 'K1', jobId: '2' }),
        at('enqueue', { key: 'K2' }),
        at('enqueue', { key: 'K1' }),
        // A step's key is not the job's key.
        at('after_claim', { key: 'K1', jobKey: 'K3' }),
      ],
      expected: ['-', '-', 'k', '-', 'q', '-'],
    },
    {
      name: 'without first, a rule fires on every matching hit (a poison fault)',
      rules: [{ id: 'p', point: 'after_claim', action: 'crash', where: { jobKey: 'K1' } }],
      hits: [1, 2, 3, 4].map((attempt) => at('after_claim', { jobKey: 'K1', attempt })),
      expected: ['p', 'p', 'p', 'p'],
    },
    {
      name: 'the first rule that fires decides; a later rule still counts the hit',
      rules: [
        { id: 'a', point: 'after_write', action: 'delay', arg: { ms: 5 }, first: 1 },
        { id: 'b', point: 'after_write', action: 'crash', first: 2 },
      ],
      // b's first two hits are hit 1 (taken by a) and hit 2.
      hits: [at('after_write'), at('after_write'), at('after_write')],
      expected: ['a', 'b', '-'],
    },
    {
      name: 'probability 0 never fires, probability 1 always',
      rules: [
        { id: 'never', point: 'heartbeat', action: 'crash', probability: 0 },
        { id: 'always', point: 'heartbeat', action: 'exit', probability: 1 },
      ],
      hits: [at('heartbeat'), at('heartbeat'), at('heartbeat')],
      expected: ['always', 'always', 'always'],
    },
  ];

  it.each(cases)('$name', ({ rules, hits, expected }) => {
    expect(decisions(rules, hits)).toEqual(expected);
  });

  it('resolves arguments and defaults into the action', () => {
    const plan = new FaultPlan(
      [
        { id: 'x', point: 'enqueue', action: 'exit' },
        { id: 'e', point: 'on_timeout', action: 'error', arg: { kind: 'unknown_outcome' } },
        { id: 'p', point: 'heartbeat', action: 'pause', arg: { ms: 300 } },
      ],
      seededRandom(1),
    );
    expect(plan.decide(at('enqueue'))?.action).toEqual({ type: 'exit', code: 1 });
    expect(plan.decide(at('on_timeout'))?.action).toEqual({
      type: 'error',
      kind: 'unknown_outcome',
      message: 'injected unknown_outcome error at on_timeout (fault rule e)',
    });
    expect(plan.decide(at('heartbeat'))?.action).toEqual({ type: 'pause', ms: 300 });
  });
});

describe('FaultPlan with probability', () => {
  const rules: FaultRule[] = [
    { id: 'flaky', point: 'before_call', action: 'error', arg: { kind: 'transient' }, probability: 0.3 },
    { id: 'rare', point: 'after_write', action: 'crash', probability: 0.1 },
  ];
  const hits = Array.from({ length: 400 }, (_, n) => at(n % 3 === 0 ? 'after_write' : 'before_call', { jobId: String(n) }));

  it('replays: the same rules, seed and hits give the same decisions', () => {
    const first = decisions(rules, hits, 42);
    expect(decisions(rules, hits, 42)).toEqual(first);
    expect(decisions(rules, hits, 43)).not.toEqual(first);
  });

  it('fires at about the rate asked for', () => {
    const fired = decisions(rules, hits, 42);
    const flaky = fired.filter((id) => id === 'flaky').length / hits.filter((h) => h.point === 'before_call').length;
    expect(flaky).toBeGreaterThan(0.2);
    expect(flaky).toBeLessThan(0.4);
  });

  it("one rule's draws do not shift when another rule's hits change", () => {
    const beforeCalls = hits.filter((h) => h.point === 'before_call');
    const flakyAlone = decisions(rules, beforeCalls, 42);
    const flakyAmongOthers = decisions(rules, hits, 42).filter((_, n) => hits[n]!.point === 'before_call');
    expect(flakyAmongOthers).toEqual(flakyAlone);
  });

  it('decides each hit by what it is, not by when it came: shuffled, and made by other workers, the same hits get the same decisions', () => {
    const racing: FaultRule[] = [
      { id: 'claim', point: 'after_claim', action: 'error', arg: { kind: 'transient' }, probability: 0.4 },
      { id: 'call', point: 'before_call', action: 'error', arg: { kind: 'transient' }, probability: 0.4 },
    ];
    const made = (worker: (n: number) => string) =>
      Array.from({ length: 60 }, (_, n) =>
        at(n % 2 === 0 ? 'after_claim' : 'before_call', {
          worker: worker(n),
          jobKey: `key-${Math.floor(n / 6)}`,
          jobId: String(Math.floor(n / 6) + 1),
          attempt: (Math.floor(n / 2) % 3) + 1,
          ...(n % 2 === 1 ? { step: 'write' } : {}),
        }),
      );
    const byHit = (hits: FailpointContext[]) => {
      const fired = decisions(racing, hits, 9);
      return new Map(hits.map((hit, n) => [JSON.stringify([hit.point, hit.jobKey, hit.attempt, hit.step]), fired[n]]));
    };
    const inOrder = made((n) => `w${(n % 3) + 1}`);
    const shuffle = seededRandom(4);
    const reordered = made((n) => `w${3 - (n % 3)}`)
      .map((hit) => ({ hit, order: shuffle.next() }))
      .sort((a, b) => a.order - b.order)
      .map(({ hit }) => hit);
    const expected = byHit(inOrder);
    expect([...expected.values()].filter((id) => id !== '-').length, 'some fire').toBeGreaterThan(5);
    expect(byHit(reordered)).toEqual(expected);
  });

  it('tells two producers enqueuing one key apart: the process is part of a hit outside a claimed job', () => {
    const rule: FaultRule[] = [{ id: 'p', point: 'enqueue', action: 'crash', probability: 0.5 }];
    const keys = Array.from({ length: 40 }, (_, n) => `key-${n}`);
    const p1 = decisions(
      rule,
      keys.map((key) => at('enqueue', { worker: 'p1', key })),
      3,
    );
    const p2 = decisions(
      rule,
      keys.map((key) => at('enqueue', { worker: 'p2', key })),
      3,
    );
    expect(p1).not.toEqual(p2);
    // And each producer's decisions do not depend on the other's hits coming first.
    const both = decisions(
      rule,
      keys.flatMap((key) => [at('enqueue', { worker: 'p2', key }), at('enqueue', { worker: 'p1', key })]),
      3,
    );
    expect(both.filter((_, n) => n % 2 === 1)).toEqual(p1);
  });

  it('with first, only the first N hits can fire', () => {
    const limited: FaultRule[] = [{ id: 'p', point: 'after_claim', action: 'crash', probability: 0.5, first: 10 }];
    const fired = decisions(
      limited,
      Array.from({ length: 100 }, () => at('after_claim')),
      7,
    );
    expect(fired.slice(10).every((id) => id === '-')).toBe(true);
    expect(fired.slice(0, 10).some((id) => id === 'p')).toBe(true);
  });
});

describe('FaultPlan stats', () => {
  it('lists fired and unfired rules with their counts', () => {
    const plan = new FaultPlan(
      [
        { id: 'fires', point: 'after_claim', action: 'crash', first: 1 },
        { id: 'elsewhere', point: 'after_write', action: 'crash', where: { worker: 'w9' }, first: 1 },
        { id: 'unlucky', point: 'after_claim', action: 'exit', probability: 0 },
      ],
      seededRandom(5),
    );
    for (let n = 0; n < 3; n++) plan.decide(at('after_claim'));
    plan.decide(at('after_write'));
    expect(plan.fired().map(({ rule, hits, fires }) => [rule.id, hits, fires])).toEqual([['fires', 3, 1]]);
    expect(plan.unfired().map(({ rule, hits, fires }) => [rule.id, hits, fires])).toEqual([
      ['elsewhere', 0, 0],
      ['unlucky', 3, 0],
    ]);
    expect(plan.unfired().map(describeUnfired)).toEqual([
      'crash at after_write (rule elsewhere, worker=w9, first 1) never fired: 0 hits',
      'exit at after_claim (rule unlucky, probability 0) never fired: 3 hits',
    ]);
  });
});

describe('FaultPlan validation', () => {
  const bad: Array<[string, unknown, RegExp]> = [
    ['unknown point', { id: 'a', point: 'after_lunch', action: 'crash' }, /unknown point "after_lunch"/],
    ['unknown action', { id: 'a', point: 'after_claim', action: 'explode' }, /unknown action "explode"; allowed: crash, exit/],
    ['first 0', { id: 'a', point: 'after_claim', action: 'crash', first: 0 }, /first must be an integer >= 1/],
    ['probability 2', { id: 'a', point: 'after_claim', action: 'crash', probability: 2 }, /probability must be in \[0, 1\]/],
    ['pause without ms', { id: 'a', point: 'after_claim', action: 'pause' }, /pause needs arg.ms/],
    ['error without kind', { id: 'a', point: 'after_claim', action: 'error', arg: {} }, /error needs arg.kind, one of transient/],
    ['unknown where', { id: 'a', point: 'after_claim', action: 'crash', where: { host: 'x' } }, /unknown where.host/],
    ['where.attempt not an integer', { id: 'a', point: 'after_claim', action: 'crash', where: { attempt: '1' } }, /where.attempt must be an integer/],
    [
      'where.jobId a number (job ids are text)',
      { id: 'a', point: 'after_claim', action: 'crash', where: { jobId: 7 } },
      /where.jobId must be a string/,
    ],
    ['where.jobKey a number', { id: 'a', point: 'after_claim', action: 'crash', where: { jobKey: 1 } }, /where.jobKey must be a string/],
    [
      'exit code out of range',
      { id: 'a', point: 'after_claim', action: 'exit', arg: { code: 300 } },
      /exit arg.code must be an integer in \[0, 255\]/,
    ],
    ['crash with an arg', { id: 'a', point: 'after_claim', action: 'crash', arg: { ms: 1 } }, /crash takes no arg/],
  ];

  it.each(bad)('refuses %s', (_, rule, message) => {
    const make = () => new FaultPlan([rule as FaultRule], seededRandom(1));
    expect(make).toThrow(FaultPlanError);
    expect(make).toThrow(message);
    try {
      make();
    } catch (error) {
      expect((error as FaultPlanError).code).toBe('QD_BAD_FAULT_RULE');
    }
  });

  it('refuses two rules with one id', () => {
    const rule: FaultRule = { id: 'same', point: 'after_claim', action: 'crash' };
    expect(() => new FaultPlan([rule, { ...rule }], seededRandom(1))).toThrow(/"same" appears twice/);
  });
});
