import { describe, expect, it } from 'vitest';
import { historyComplete } from '../../../src/judge/invariants/history-complete.js';
import { cleanEvidence, jobIn, judged, richBuilder } from './evidence-builder.js';

describe('history-complete', () => {
  it("holds when each job's life can be rebuilt from its events (refused writes included)", () => {
    expect(judged(historyComplete, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(historyComplete, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it('fails for a job with no history at all', () => {
    const evidence = cleanEvidence();
    evidence.events = evidence.events.filter((e) => e.jobId !== '2');
    expect(judged(historyComplete, evidence).evidence).toEqual([
      `job 2 (key ${jobIn(evidence, 2).key.slice(0, 8)}…): no history at all (status done)`,
    ]);
  });

  it('fails when the history does not start with the creation', () => {
    const evidence = cleanEvidence();
    evidence.events = evidence.events.filter((e) => !(e.jobId === '2' && e.from === null));
    const verdict = judged(historyComplete, evidence);
    expect(verdict.evidence).toEqual([
      expect.stringMatching(/^job 2 .*: its history does not start with its creation: event #\d+ pending→running by worker w2/),
    ]);
  });

  it('fails when a change is missing from the chain, naming both ends of the gap', () => {
    const { b, jobs } = richBuilder();
    const evidence = b.build();
    evidence.events = evidence.events.filter((e) => !(e.jobId === jobs.permanent.id && e.actor === 'human'));
    expect(judged(historyComplete, evidence).text).toMatch(
      /job 3 .*: event #\d+ pending→running by worker w2.* starts from pending, but the job was review after event #\d+ running→review by worker w1.*: a change is missing/,
    );
  });

  it('fails when the history ends elsewhere than the store', () => {
    const evidence = cleanEvidence();
    jobIn(evidence, 1).status = 'review';
    expect(judged(historyComplete, evidence).text).toMatch(
      /job 1 .*: the store says review, but its history ends done \(event #\d+ running→done by worker w1/,
    );
  });

  it('fails when attempts go backwards', () => {
    const evidence = cleanEvidence();
    const done = evidence.events.find((e) => e.jobId === '1' && e.to === 'done')!;
    done.attempt = 0;
    expect(judged(historyComplete, evidence).text).toMatch(
      new RegExp(`job 1 .*: attempts went backwards, 1 to 0: event #${done.seq} running→done.* after event #\\d+ pending→running`),
    );
  });

  it('fails for a second creation and for events of a job the store does not have', () => {
    const evidence = cleanEvidence();
    const creation = evidence.events.find((e) => e.jobId === '3' && e.from === null)!;
    evidence.events.push({ ...creation, seq: 500 }, { ...creation, seq: 501, jobId: '42' });
    const verdict = judged(historyComplete, evidence);
    expect(verdict.text).toMatch(/job 3 .*: created a second time: event #500 \(new\)→pending by producer/);
    expect(verdict.text).toMatch(/the history names job 42, which is not in the store \(1 event\(s\), first event #501/);
  });
});
