import { describe, expect, it } from 'vitest';
import { dedupeOnEnqueue } from '../../../src/scenarios/invariants/dedupe-on-enqueue.js';
import { cleanEvidence, jobIn, judged, richBuilder } from './evidence-builder.js';

describe('dedupe-on-enqueue', () => {
  it('holds with one job per key and one creation per accepted key, raced or not', () => {
    expect(judged(dedupeOnEnqueue, cleanEvidence())).toMatchObject({ status: 'held', note: 'no key was enqueued more than once: nothing raced' });
    const rich = judged(dedupeOnEnqueue, richBuilder().b.build());
    expect(rich).toMatchObject({ status: 'held', evidence: [] });
    expect(rich.note).toBeUndefined();
  });

  it('fails for two jobs under one key in the store, naming both', () => {
    const evidence = cleanEvidence();
    const key = jobIn(evidence, 1).key;
    evidence.jobs.push({ ...jobIn(evidence, 1), id: '9' });
    const verdict = judged(dedupeOnEnqueue, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([`key ${key.slice(0, 8)}…: 2 jobs in the store (jobs 1, 9)`]);
  });

  it.each([
    [2, 3, /: 2 of 3 enqueue attempt\(s\) were told they created the job \(exactly 1 must be\)/],
    [3, 3, /: 3 of 3 enqueue attempt\(s\) were told they created the job/],
  ])('fails when %i producers were told they created an accepted key', (created, attempts, line) => {
    const evidence = cleanEvidence();
    Object.assign(evidence.accepted[1]!, { createdCount: created, enqueueAttempts: attempts });
    const verdict = judged(dedupeOnEnqueue, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toHaveLength(1);
    expect(verdict.evidence[0]).toMatch(new RegExp(`^key ${evidence.accepted[1]!.key.slice(0, 8)}… \\(job 2\\)`));
    expect(verdict.evidence[0]).toMatch(line);
  });

  it('only notes a key nobody reports creating when the store has its one job (its producer may have died first)', () => {
    const evidence = cleanEvidence();
    Object.assign(evidence.accepted[1]!, { createdCount: 0, enqueueAttempts: 1 });
    const verdict = judged(dedupeOnEnqueue, evidence);
    expect(verdict.status).toBe('held');
    expect(verdict.note).toMatch(/key [0-9a-f]{8}… \(job 2\): no producer reported creating it \(of 1 enqueue attempt\(s\) reported/);
  });
});
