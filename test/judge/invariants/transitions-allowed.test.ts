import { describe, expect, it } from 'vitest';
import { transitionsAllowed } from '../../../src/judge/invariants/transitions-allowed.js';
import type { Transition } from '../../../src/port/snapshot.js';
import { cleanEvidence, judged, richBuilder } from './evidence-builder.js';

describe('transitions-allowed', () => {
  it('holds when every change is an edge of the state machine taken by its actor', () => {
    expect(judged(transitionsAllowed, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(transitionsAllowed, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  const change = (fields: Partial<Record<keyof Transition, unknown>>) => {
    const evidence = cleanEvidence();
    const event = evidence.events.find((e) => e.jobId === '2' && e.to === 'done')!;
    Object.assign(event, fields);
    return { evidence, event };
  };

  it.each([
    ['done → running', { from: 'done', to: 'running' }, /done→running by worker is not an allowed change/],
    ['running → done by the coordinator', { actor: 'coordinator' }, /running→done by coordinator is not an allowed change/],
    ['running → pending', { to: 'pending' }, /running→pending by worker is not an allowed change/],
    ['a creation by a worker', { from: null, to: 'pending' }, /\(new\)→pending by worker is not an allowed change/],
    ['a creation straight to running', { from: null, to: 'running', actor: 'producer' }, /\(new\)→running by producer is not an allowed change/],
    ['an unknown actor', { actor: 'cron' }, /unknown actor "cron"/],
    ['an unknown status', { to: 'archived' }, /names a status the state machine does not have/],
    ['an unknown kind', { kind: 'retried' }, /unknown event kind "retried"/],
  ])('fails for %s', (_what, fields, line) => {
    const { evidence, event } = change(fields);
    const verdict = judged(transitionsAllowed, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toHaveLength(1);
    expect(verdict.evidence[0]).toMatch(new RegExp(`^job 2: event #${event.seq} `));
    expect(verdict.evidence[0]).toMatch(line);
  });

  it('does not judge refused writes as changes', () => {
    const { evidence } = change({ kind: 'refused', from: 'done', to: 'running' });
    expect(judged(transitionsAllowed, evidence).status).toBe('held');
  });
});
