import { describe, expect, it } from 'vitest';
import { leaseReleased } from '../../../src/judge/invariants/lease-released.js';
import { cleanEvidence, EvidenceBuilder, jobIn, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

describe('lease-released', () => {
  it('holds when no job runs at rest and only a saga mid-compensation holds a lease', () => {
    expect(judged(leaseReleased, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(leaseReleased, richBuilder().b.build()).status).toBe('held');
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.write, STEPS.email))
      .claim('w1')
      .execute('write')
      .execute('email', 'failed')
      .beginCompensation('failed for good')
      .takeSaga('coord-1');
    expect(judged(leaseReleased, b.build()).status).toBe('held');
  });

  it('fails for a job running at rest, naming its holder and lease end', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.email)).claim('w2');
    const verdict = judged(leaseReleased, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(/^job 1 \(key [0-9a-f]{8}…\): running at rest, leased by w2 until 2026-08-25T10:00:30\.200Z \(epoch 1, attempt 1\)$/),
    ]);
  });

  it.each([
    ['done', 'w1', '2026-08-25T10:05:00.000Z', /job 2 .*: done but still leased by w1 until 2026-08-25T10:05:00\.000Z \(epoch 1\)/],
    ['review', null, '2026-08-25T10:05:00.000Z', /job 2 .*: review but still leased by \(nobody\) until 2026-08-25T10:05:00\.000Z/],
    ['retry', 'w3', null, /job 2 .*: retry but still leased by w3 until \(no end\)/],
  ] as const)('fails for a %s job still holding a lease', (status, by, until, line) => {
    const evidence = cleanEvidence();
    Object.assign(jobIn(evidence, 2), { status, holder: by, leaseUntil: until });
    const verdict = judged(leaseReleased, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(line);
  });
});
