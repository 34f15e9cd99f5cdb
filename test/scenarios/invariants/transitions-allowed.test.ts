import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../src/queue/job.js';
import { transitionsAllowed } from '../../../src/scenarios/invariants/transitions-allowed.js';
import { cleanEvidence, judged, richBuilder } from './evidence-builder.js';

describe('transitions-allowed', () => {
  it('holds when every change is an edge of the state machine taken by its actor', () => {
    expect(judged(transitionsAllowed, cleanEvidence())).toMatchObject({ holds: true, evidence: [] });
    expect(judged(transitionsAllowed, richBuilder().b.build())).toMatchObject({ holds: true, evidence: [] });
  });

  const change = (fields: Partial<Record<keyof JobEvent, unknown>>) => {
    const evidence = cleanEvidence();
    const event = evidence.events.find((e) => e.job_id === 2 && e.to_status === 'done')!;
    Object.assign(event, fields);
    return { evidence, event };
  };

  it.each([
    ['done → running', { from_status: 'done', to_status: 'running' }, /done→running by worker is not an allowed change/],
    ['running → done by the coordinator', { actor: 'coordinator' }, /running→done by coordinator is not an allowed change/],
    ['running → pending', { to_status: 'pending' }, /running→pending by worker is not an allowed change/],
    ['a creation by a worker', { from_status: null, to_status: 'pending' }, /\(new\)→pending by worker is not an allowed change/],
    ['a creation straight to running', { from_status: null, to_status: 'running', actor: 'producer' }, /\(new\)→running by producer is not an allowed change/],
    ['an unknown actor', { actor: 'cron' }, /unknown actor "cron"/],
    ['an unknown status', { to_status: 'archived' }, /names a status the state machine does not have/],
    ['an unknown kind', { kind: 'retried' }, /unknown event kind "retried"/],
  ])('fails for %s', (_what, fields, line) => {
    const { evidence, event } = change(fields);
    const verdict = judged(transitionsAllowed, evidence);
    expect(verdict.holds).toBe(false);
    expect(verdict.evidence).toHaveLength(1);
    expect(verdict.evidence[0]).toMatch(new RegExp(`^job 2: event #${event.id} `));
    expect(verdict.evidence[0]).toMatch(line);
  });

  it('does not judge refused writes as changes', () => {
    const { evidence } = change({ kind: 'refused', from_status: 'done', to_status: 'running' });
    expect(judged(transitionsAllowed, evidence).holds).toBe(true);
  });
});
