import { describe, expect, it } from 'vitest';
import { doneIsVerified } from '../../../src/judge/invariants/done-is-verified.js';
import { cleanEvidence, jobIn, judged, richBuilder } from './evidence-builder.js';

describe('done-is-verified', () => {
  it('holds when every done job has a digest, was done by its holder, and its effects are in the world', () => {
    expect(judged(doneIsVerified, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(doneIsVerified, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it.each([null, 'verified', 'AB'.repeat(32)])('fails for a done job whose digest is %j', (digest) => {
    const evidence = cleanEvidence();
    jobIn(evidence, 2).resultDigest = digest;
    const verdict = judged(doneIsVerified, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      `job 2 (key ${jobIn(evidence, 2).key.slice(0, 8)}…): done without a verification digest (result_digest ${JSON.stringify(digest)})`,
    ]);
  });

  it('fails for a done job whose history never reached done', () => {
    const evidence = cleanEvidence();
    evidence.events = evidence.events.filter((e) => !(e.jobId === '1' && e.to === 'done'));
    expect(judged(doneIsVerified, evidence).text).toMatch(/job 1 .*: done in the store, but its history has no transition to done/);
  });

  it('fails when done was written by someone other than the holder of the current lease', () => {
    const evidence = cleanEvidence();
    const done = evidence.events.find((e) => e.jobId === '3' && e.to === 'done')!;
    done.worker = 'w2';
    expect(judged(doneIsVerified, evidence).text).toMatch(
      new RegExp(
        `job 3 .*: event #${done.seq} running→done by worker w2, epoch 1.* was not written by the holder of the current lease \\(event #\\d+ pending→running by worker w1, epoch 1`,
      ),
    );
  });

  it('fails when done was not written from a claimed run', () => {
    const evidence = cleanEvidence();
    const done = evidence.events.find((e) => e.jobId === '3' && e.to === 'done')!;
    done.from = 'pending';
    expect(judged(doneIsVerified, evidence).text).toMatch(
      new RegExp(`job 3 .*: event #${done.seq} pending→done .* ends no lease: done was not written from a claimed run`),
    );
  });

  it("fails when a done job's effect is not in the world: done on the worker's word", () => {
    const evidence = cleanEvidence();
    const job = jobIn(evidence, 3);
    evidence.effects = evidence.effects.filter((e) => e.job !== '3');
    const verdict = judged(doneIsVerified, evidence);
    expect(verdict.evidence).toEqual([
      `job 3 (key ${job.key.slice(0, 8)}…): done on the worker's word: step write (write_file) has no effect in the world's ledger under key ${job.key.slice(0, 16)}:write`,
    ]);
  });
});
