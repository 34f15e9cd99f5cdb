import { describe, expect, it } from 'vitest';
import { dedupeOnEnqueue } from '../../../src/judge/invariants/dedupe-on-enqueue.js';
import { cleanEvidence, jobIn, judged, richBuilder } from './evidence-builder.js';

describe('dedupe-on-enqueue', () => {
  it('holds with one job per key and one creation per accepted key, raced or not; judges only the keys that raced', () => {
    expect(judged(dedupeOnEnqueue, cleanEvidence())).toMatchObject({
      status: 'held',
      judged: 0,
      note: "no key had two producers' enqueue calls in flight at once: nothing raced",
    });
    const rich = judged(dedupeOnEnqueue, richBuilder().b.build());
    expect(rich).toMatchObject({ status: 'held', judged: 1, evidence: [] });
    expect(rich.note).toBeUndefined();
  });

  it('judges nothing for a key enqueued several times one after the other: only calls in flight at once race', () => {
    const evidence = cleanEvidence();
    Object.assign(evidence.accepted[1]!, { enqueueAttempts: 4, createdCount: 1, raced: false });
    expect(judged(dedupeOnEnqueue, evidence)).toMatchObject({ status: 'held', judged: 0 });
    evidence.accepted[1]!.raced = true;
    expect(judged(dedupeOnEnqueue, evidence)).toMatchObject({ status: 'held', judged: 1 });
  });

  it('does not count a raced key whose creation nobody reported as judged', () => {
    const evidence = cleanEvidence();
    Object.assign(evidence.accepted[1]!, { enqueueAttempts: 2, createdCount: 0, raced: true });
    expect(judged(dedupeOnEnqueue, evidence)).toMatchObject({ status: 'held', judged: 0 });
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
