import { describe, expect, it } from 'vitest';
import { utc } from '../../../src/kernel/clock.js';
import type { Evidence } from '../../../src/scenarios/evidence.js';
import { singleHolder } from '../../../src/scenarios/invariants/single-holder.js';
import { cleanEvidence, EvidenceBuilder, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

/** The rich evidence and its job `died`: w1 claimed (fence 1) and died mid-email, coord-1 reconciled and released, w2 claimed (fence 2) and finished. */
function died(): { evidence: Evidence; jobId: number } {
  const { b, jobs } = richBuilder();
  return { evidence: b.build(), jobId: jobs.died.id };
}

const claimsOf = (evidence: Evidence, jobId: number) => evidence.events.filter((e) => e.job_id === jobId && e.kind === 'transition' && e.to_status === 'running');

describe('single-holder', () => {
  it('holds with fenced leases, a refused stale write, a coordinator reconciling an expired lease and a saga', () => {
    expect(judged(singleHolder, cleanEvidence())).toMatchObject({ holds: true, evidence: [] });
    expect(judged(singleHolder, richBuilder().b.build())).toMatchObject({ holds: true, evidence: [] });
  });

  describe('from the history', () => {
    it('fails when two claims share a fence', () => {
      const { evidence, jobId } = died();
      claimsOf(evidence, jobId)[1]!.fence = 1;
      const verdict = judged(singleHolder, evidence);
      expect(verdict.holds).toBe(false);
      expect(verdict.text).toMatch(/job 1 \(key [0-9a-f]{8}…\): two claims share fence 1: event #\d+ pending→running by worker w1, fence 1.* and event #\d+ retry→running by worker w2, fence 1/);
    });

    it('fails when a fence goes backwards', () => {
      const { evidence, jobId } = died();
      claimsOf(evidence, jobId)[0]!.fence = 5;
      expect(judged(singleHolder, evidence).text).toMatch(/job 1 .*: fence went backwards: event #\d+ retry→running by worker w2, fence 2.* after event #\d+ pending→running by worker w1, fence 5/);
    });

    it('fails when a job is claimed while another lease is live', () => {
      const { evidence, jobId } = died();
      // Drop the release of w1's expired lease: w2's claim then lands on a live lease.
      evidence.events = evidence.events.filter((e) => !(e.job_id === jobId && e.from_status === 'running' && e.to_status === 'retry'));
      const verdict = judged(singleHolder, evidence);
      expect(verdict.holds).toBe(false);
      expect(verdict.text).toMatch(/job 1 .*: claimed by w2 \(event #\d+ retry→running by worker w2, fence 2.*\) while the lease of w1 \(event #\d+ pending→running by worker w1, fence 1.*\) was live/);
    });

    it("fails when a stale holder's write was applied after another worker's claim", () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').expire('w2', 'worker').claim('w2');
      // What the store refuses (w1 under fence 1), applied: the zombie completes w2's run.
      job.transition('done', 'worker', 'w1', 'done', 1);
      const verdict = judged(singleHolder, b.build());
      expect(verdict.holds).toBe(false);
      expect(verdict.text).toMatch(/job 1 .*: a stale write was applied, not refused: event #5 running→done by worker w1, fence 1, .* after w2 claimed it under fence 2/);
    });

    it("fails when a swept holder's write was applied before anyone claimed again", () => {
      const { evidence, jobId } = died();
      const refused = evidence.events.find((e) => e.job_id === jobId && e.kind === 'refused')!;
      refused.kind = 'transition';
      const verdict = judged(singleHolder, evidence);
      expect(verdict.holds).toBe(false);
      expect(verdict.text).toMatch(
        new RegExp(`job 1 .*: a worker's write was applied with no live lease: event #${refused.id} retry→done by worker w1, fence 1, .* \\(the last lease ended event #\\d+ running→retry by coordinator coord-1`),
      );
    });

    it('fails when done is written by someone other than the holder', () => {
      const evidence = cleanEvidence();
      const done = evidence.events.find((e) => e.job_id === 2 && e.to_status === 'done')!;
      done.worker = 'w9';
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(`job 2 .*: event #${done.id} running→done by worker w9, fence 1.* was written by w9, not by the holder w2`),
      );
    });

    it('fails when a lease is ended under another fence', () => {
      const { evidence, jobId } = died();
      const sweep = evidence.events.find((e) => e.job_id === jobId && e.to_status === 'retry')!;
      sweep.fence = 7;
      expect(judged(singleHolder, evidence).text).toMatch(new RegExp(`job 1 .*: event #${sweep.id} running→retry by coordinator coord-1, fence 7.* ends the lease of w1 under fence 1 .* with another fence`));
    });
  });

  describe('from the transaction log', () => {
    it('fails for a checkpoint by a worker that did not hold its attempt', () => {
      const evidence = cleanEvidence();
      const row = evidence.txLog.find((r) => r.job_id === 1 && r.step_id === 'email' && r.status === 'success')!;
      row.worker = 'w2';
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(`job 1 .*: tx #${row.id} email execute success \\(attempt 1, w2, at .*\\) was written by w2, but attempt 1 was held by w1`),
      );
    });

    it('fails for a checkpoint under an attempt never claimed', () => {
      const evidence = cleanEvidence();
      const row = evidence.txLog.find((r) => r.job_id === 3)!;
      row.attempt = 4;
      expect(judged(singleHolder, evidence).text).toMatch(new RegExp(`job 3 .*: tx #${row.id} read execute started \\(attempt 4, w1, .*\\) is written under attempt 4, which the history never claimed`));
    });

    it('fails for a checkpoint written after its lease ended, further out than the skew margin', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').expire('coord-1');
      b.advance(5_000);
      // The store fences this; a queue that does not lets the zombie checkpoint in.
      job.tx('email', 'execute', 'started', { worker: 'w1' });
      const verdict = judged(singleHolder, b.build());
      expect(verdict.holds).toBe(false);
      expect(verdict.text).toMatch(/job 1 .*: tx #1 email execute started \(attempt 1, w1, .*\) was written after w1's lease ended \(event #3 running→retry by coordinator coord-1, fence 1/);
    });

    it('tolerates a checkpoint just past the lease end, within the skew margin', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').expire('coord-1');
      job.tx('email', 'execute', 'started', { worker: 'w1' });
      expect(judged(singleHolder, b.build()).holds).toBe(true);
    });

    it('fails for a checkpoint written before its claim', () => {
      const evidence = cleanEvidence();
      const row = evidence.txLog.find((r) => r.job_id === 2)!;
      row.at = utc(Date.parse(row.at) - 60_000);
      expect(judged(singleHolder, evidence).text).toMatch(new RegExp(`job 2 .*: tx #${row.id} branch execute started .* was written before its claim`));
    });

    it('fails for a reconcile by a coordinator that did not release the lease', () => {
      const { evidence, jobId } = died();
      const row = evidence.txLog.find((r) => r.job_id === jobId && r.action === 'reconcile')!;
      row.worker = 'coord-9';
      expect(judged(singleHolder, evidence).text).toMatch(new RegExp(`job 1 .*: tx #${row.id} email reconcile not_executed \\(attempt 1, coord-9, .*\\) was written by coord-9, but attempt 1 was held by w1`));
    });

    it('fails for a compensation written outside the compensating period', () => {
      const { b, jobs } = richBuilder();
      const evidence = b.build();
      const row = evidence.txLog.find((r) => r.job_id === jobs.saga.id && r.action === 'compensate')!;
      row.at = utc(Date.parse(row.at) + 3_600_000);
      expect(judged(singleHolder, evidence).text).toMatch(new RegExp(`job 4 .*: tx #${row.id} branch compensate started .* was written outside the job's compensating period`));
    });
  });

  describe('from the ledger', () => {
    it('fails for an effect applied by a worker that did not hold its attempt', () => {
      const evidence = cleanEvidence();
      const effect = evidence.effects.find((e) => e.job === '2' && e.step === 'publish')!;
      effect.worker = 'w1';
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(`job 2 .*: ledger #${effect.seq} publish_article by w1 attempt 1 .* \\(key ${effect.key}\\), but attempt 1 was held by w2`),
      );
    });

    it('fails for an effect under an attempt never claimed, and notes effects of no known job', () => {
      const evidence = cleanEvidence();
      const effect = evidence.effects.find((e) => e.job === '1')!;
      effect.attempt = 3;
      evidence.effects.push({ ...effect, seq: 99, job: 'job-from-another-drill' });
      const verdict = judged(singleHolder, evidence);
      expect(verdict.text).toMatch(new RegExp(`job 1 .*: ledger #${effect.seq} write_file by w1 attempt 3 .* under attempt 3, which the history never claimed`));
      expect(verdict.note).toBe('1 ledger effect(s) name no job of the store and were not attributed');
    });
  });
});
