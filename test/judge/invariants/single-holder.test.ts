import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../src/judge/evidence.js';
import { singleHolder } from '../../../src/judge/invariants/single-holder.js';
import { utc } from '../../../src/kernel/clock.js';
import { cleanEvidence, EvidenceBuilder, type FailpointPlace, type JobScript, judged, planOf, richBuilder, STEPS } from './evidence-builder.js';

/** The rich evidence and its job `died`: w1 claimed (epoch 1) and died mid-email, coord-1 reconciled and released, w2 claimed (epoch 2) and finished. */
function died(): { evidence: Evidence; jobId: string } {
  const { b, jobs } = richBuilder();
  return { evidence: b.build(), jobId: jobs.died.id };
}

const claimsOf = (evidence: Evidence, jobId: string) =>
  evidence.events.filter((e) => e.jobId === jobId && e.kind === 'transition' && e.to === 'running');

/** w1 claimed (epoch 1) and wrote, its lease expired and coord-1 swept it, w2 claimed (epoch 2): the start of every zombie's story. */
function takenOver(plan = planOf(STEPS.write, STEPS.email)): { b: EvidenceBuilder; job: JobScript } {
  const b = new EvidenceBuilder();
  const job = b.job(plan);
  job.claim('w1').execute('write').expire('coord-1');
  job.claim('w2');
  return { b, job };
}

describe('single-holder', () => {
  it('holds with epoch-fenced leases, a refused stale write, a coordinator reconciling an expired lease, a requeue and sagas', () => {
    expect(judged(singleHolder, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    const rich = judged(singleHolder, richBuilder().b.build());
    expect(rich).toMatchObject({ status: 'held', evidence: [] });
    // Every effect of the rich evidence carries its epoch and names a job of the queue: nothing was left unplaced.
    expect(rich.note).toBeUndefined();
  });

  describe('from the history', () => {
    it('fails when two claims share an epoch', () => {
      const { evidence, jobId } = died();
      claimsOf(evidence, jobId)[1]!.epoch = 1;
      const verdict = judged(singleHolder, evidence);
      expect(verdict.status).toBe('broken');
      expect(verdict.text).toMatch(
        /job 1 \(key [0-9a-f]{8}…\): two claims share epoch 1: event #\d+ pending→running by worker w1, epoch 1.* and event #\d+ retry→running by worker w2, epoch 1/,
      );
    });

    it('fails when an epoch goes backwards', () => {
      const { evidence, jobId } = died();
      claimsOf(evidence, jobId)[0]!.epoch = 5;
      expect(judged(singleHolder, evidence).text).toMatch(
        /job 1 .*: epoch went backwards: event #\d+ retry→running by worker w2, epoch 2.* after event #\d+ pending→running by worker w1, epoch 5/,
      );
    });

    it('fails when a job is claimed while another lease is live', () => {
      const { evidence, jobId } = died();
      // Drop the release of w1's expired lease: w2's claim then lands on a live lease.
      evidence.events = evidence.events.filter((e) => !(e.jobId === jobId && e.from === 'running' && e.to === 'retry'));
      const verdict = judged(singleHolder, evidence);
      expect(verdict.status).toBe('broken');
      expect(verdict.text).toMatch(
        /job 1 .*: claimed by w2 \(event #\d+ retry→running by worker w2, epoch 2.*\) while the lease of w1 \(event #\d+ pending→running by worker w1, epoch 1.*\) was live/,
      );
    });

    it("fails when a stale holder's write was applied after another worker's claim", () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').expire('w2', 'worker').claim('w2');
      // What the store refuses (w1 under epoch 1), applied: the zombie completes w2's run.
      job.transition('done', 'worker', 'w1', 'done', 1);
      const verdict = judged(singleHolder, b.build());
      expect(verdict.status).toBe('broken');
      expect(verdict.text).toMatch(
        /job 1 .*: a stale write was applied, not refused: event #5 running→done by worker w1, epoch 1, .* after w2 claimed it under epoch 2/,
      );
    });

    it("fails when a swept holder's write was applied before anyone claimed again", () => {
      const { evidence, jobId } = died();
      const refused = evidence.events.find((e) => e.jobId === jobId && e.kind === 'refused')!;
      refused.kind = 'transition';
      const verdict = judged(singleHolder, evidence);
      expect(verdict.status).toBe('broken');
      expect(verdict.text).toMatch(
        new RegExp(
          `job 1 .*: a worker's write was applied with no live lease: event #${refused.seq} retry→done by worker w1, epoch 1, .* \\(the last lease ended event #\\d+ running→retry by coordinator coord-1`,
        ),
      );
    });

    it('fails when done is written by someone other than the holder', () => {
      const evidence = cleanEvidence();
      const done = evidence.events.find((e) => e.jobId === '2' && e.to === 'done')!;
      done.worker = 'w9';
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(`job 2 .*: event #${done.seq} running→done by worker w9, epoch 1.* was written by w9, not by the holder w2`),
      );
    });

    it('fails when a lease is ended under another epoch', () => {
      const { evidence, jobId } = died();
      const sweep = evidence.events.find((e) => e.jobId === jobId && e.to === 'retry')!;
      sweep.epoch = 7;
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(
          `job 1 .*: event #${sweep.seq} running→retry by coordinator coord-1, epoch 7.* ends the lease of w1 under epoch 1 .* with another epoch`,
        ),
      );
    });
  });

  describe('from the checkpoints', () => {
    it('fails for a checkpoint by a worker that did not hold its epoch', () => {
      const evidence = cleanEvidence();
      const row = evidence.txLog.find((r) => r.job_id === '1' && r.step_id === 'email' && r.status === 'success')!;
      row.worker = 'w2';
      expect(judged(singleHolder, evidence).evidence).toEqual([
        expect.stringMatching(
          new RegExp(
            `^job 1 .*: tx #${row.id} email execute success \\(attempt 1, epoch 1, w2, at .*\\) was written by w2, but epoch 1 was held by w1 \\(event #\\d+ pending→running by worker w1`,
          ),
        ),
      ]);
    });

    it('fails for a checkpoint under an epoch the history never claimed', () => {
      const evidence = cleanEvidence();
      const rows = evidence.txLog.filter((r) => r.job_id === '3');
      const row = rows[rows.length - 1]!;
      row.epoch = 9;
      expect(judged(singleHolder, evidence).evidence).toEqual([
        expect.stringMatching(
          new RegExp(
            `^job 3 \\(key [0-9a-f]{8}…\\): tx #${row.id} write execute success \\(attempt 1, epoch 9, w1, at .*\\) is written under epoch 9, which the history never claimed$`,
          ),
        ),
      ]);
    });

    it("fails for a checkpoint whose attempt is not its epoch's", () => {
      const evidence = cleanEvidence();
      const row = evidence.txLog.find((r) => r.job_id === '3')!;
      row.attempt = 4;
      expect(judged(singleHolder, evidence).evidence).toEqual([
        expect.stringMatching(
          new RegExp(
            `^job 3 .*: tx #${row.id} read execute started \\(attempt 4, epoch 1, w1, .*\\) names attempt 4, but epoch 1 was attempt 1 \\(event #\\d+ pending→running by worker w1, epoch 1, attempt 1`,
          ),
        ),
      ]);
    });

    it("fails for a stale holder's checkpoint: an older epoch after a newer one, even within the skew margin", () => {
      const { b, job } = takenOver();
      const newer = job.tx('email', 'execute', 'started');
      // The zombie w1, 300 ms after its lease was swept: too close for the clocks to tell, not for the epochs.
      const stale = job.tx('email', 'execute', 'started', { worker: 'w1', epoch: 1, attempt: 1 });
      const verdict = judged(singleHolder, b.build());
      expect(verdict.evidence).toEqual([
        expect.stringMatching(
          new RegExp(
            `^job 1 .*: tx #${stale.id} email execute started \\(attempt 1, epoch 1, w1, at .*\\) was written under epoch 1 after tx #${newer.id} email execute started \\(attempt 2, epoch 2, w2, at .*\\): a stale holder's checkpoint$`,
          ),
        ),
      ]);
    });

    it('fails for a checkpoint written after its lease ended, further out than the skew margin', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').expire('coord-1');
      b.advance(5_000);
      // The store fences this; a queue that does not lets the zombie checkpoint in.
      job.tx('email', 'execute', 'started', { worker: 'w1' });
      const verdict = judged(singleHolder, b.build());
      expect(verdict.status).toBe('broken');
      expect(verdict.text).toMatch(
        /job 1 .*: tx #1 email execute started \(attempt 1, epoch 1, w1, .*\) was written after w1's lease ended \(event #3 running→retry by coordinator coord-1, epoch 1/,
      );
    });

    it('tolerates a checkpoint just past the lease end, within the skew margin', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.email));
      job.claim('w1').expire('coord-1');
      job.tx('email', 'execute', 'started', { worker: 'w1' });
      expect(judged(singleHolder, b.build()).status).toBe('held');
    });

    it('fails for a checkpoint written before its claim', () => {
      const evidence = cleanEvidence();
      const row = evidence.txLog.find((r) => r.job_id === '2')!;
      row.at = utc(Date.parse(row.at) - 60_000);
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(`job 2 .*: tx #${row.id} branch execute started .* was written before its claim`),
      );
    });

    it('fails for a reconcile by a coordinator that did not release the lease', () => {
      const { evidence, jobId } = died();
      const row = evidence.txLog.find((r) => r.job_id === jobId && r.action === 'reconcile')!;
      row.worker = 'coord-9';
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(
          `job 1 .*: tx #${row.id} email reconcile not_executed \\(attempt 1, epoch 1, coord-9, .*\\) was written by coord-9, but epoch 1 was held by w1`,
        ),
      );
    });

    it("fails for a coordinator's reconcile written away from its release of the lease", () => {
      const { evidence, jobId } = died();
      const row = evidence.txLog.find((r) => r.job_id === jobId && r.action === 'reconcile')!;
      row.at = utc(Date.parse(row.at) - 10_000);
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(
          `job 1 .*: tx #${row.id} email reconcile not_executed \\(attempt 1, epoch 1, coord-1, .*\\) by the coordinator, but away from its release of the lease \\(event #\\d+ running→retry by coordinator coord-1`,
        ),
      );
    });

    it('does not hold a person against the epochs: a requeue row carries the epoch of the review it ends', () => {
      const { b, jobs } = richBuilder();
      const evidence = b.build();
      const requeue = evidence.txLog.find((r) => r.job_id === jobs.permanent.id && r.action === 'requeue')!;
      expect(requeue).toMatchObject({ worker: 'human:alice', epoch: 1, attempt: 1 });
      // Written after w2's epoch-2 rows, a person's row is still no stale holder's.
      evidence.txLog.push({ ...requeue, id: evidence.txLog.length + 1, at: utc(b.now + 1_000) });
      expect(judged(singleHolder, evidence)).toMatchObject({ status: 'held', evidence: [] });
    });

    it('fails for a compensation written outside the compensating period', () => {
      const { b, jobs } = richBuilder();
      const evidence = b.build();
      const row = evidence.txLog.find((r) => r.job_id === jobs.saga.id && r.action === 'compensate')!;
      row.at = utc(Date.parse(row.at) + 3_600_000);
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(`job 4 .*: tx #${row.id} branch compensate started .* was written outside the job's compensating period`),
      );
    });

    it.each([
      ['the epoch it went to compensating under', 1, []],
      // Below the worker's own epoch too: also a stale holder's checkpoint, after the worker's epoch-1 rows.
      [
        'an epoch below it',
        0,
        [/was written under epoch 0 after tx #\d+ write execute started \(attempt 1, epoch 1, w2, .*\): a stale holder's checkpoint$/],
      ],
    ])('fails for a compensation under %s: no coordinator took the saga under a new epoch', (_what, epoch, also) => {
      const { b, jobs } = richBuilder();
      const evidence = b.build();
      const row = evidence.txLog.find((r) => r.job_id === jobs.saga.id && r.action === 'compensate')!;
      row.epoch = epoch;
      const period = new RegExp(
        `^job 4 .*: tx #${row.id} branch compensate started \\(attempt 1, epoch ${epoch}, coord-1, .*\\) was written outside the job's compensating period \\(or under an epoch no later than the one it went to compensating under\\), when no coordinator could hold it$`,
      );
      expect(judged(singleHolder, evidence).evidence).toEqual([...also.map((line) => expect.stringMatching(line)), expect.stringMatching(period)]);
    });
  });

  describe('from the ledger', () => {
    it('fails for an effect applied by a worker that did not hold its epoch', () => {
      const evidence = cleanEvidence();
      const effect = evidence.effects.find((e) => e.job === '2' && e.step === 'publish')!;
      effect.worker = 'w1';
      expect(judged(singleHolder, evidence).evidence).toEqual([
        expect.stringMatching(
          new RegExp(
            `^job 2 .*: ledger #${effect.seq} publish_article by w1 attempt 1 .* \\(key ${effect.key}\\), but epoch 1 was held by w2 \\(event #\\d+ pending→running by worker w2`,
          ),
        ),
      ]);
    });

    it("fails for an effect under a later holder's epoch, applied by the holder it took over from", () => {
      const { b, job } = takenOver();
      // The zombie w1 shows w2's epoch: the world takes its word for the epoch, the history says who held it.
      const effect = job.apply('email', { worker: 'w1', attempt: 1, epoch: 2 });
      expect(judged(singleHolder, b.build()).evidence).toEqual([
        expect.stringMatching(
          new RegExp(
            `^job 1 .*: ledger #${effect.seq} send_email by w1 attempt 1 .* \\(key ${job.keyOf('email')}\\), but epoch 2 was held by w2 \\(event #\\d+ retry→running by worker w2, epoch 2`,
          ),
        ),
      ]);
    });

    it('fails for an effect applied under an older epoch after a newer one for the same job, naming both', () => {
      const { b, job } = takenOver();
      const newer = job.apply('write');
      const stale = job.apply('email', { worker: 'w1', attempt: 1, epoch: 1 });
      expect(judged(singleHolder, b.build()).evidence).toEqual([
        `job 1 (key ${job.key.slice(0, 8)}…): the world applied ledger #${stale.seq} send_email by w1 attempt 1 pid ${stale.pid} at ${stale.at} (key ${stale.key}) under epoch 1 after it had applied ledger #${newer.seq} write_file by w2 attempt 2 pid ${newer.pid} at ${newer.at} under epoch 2: a stale holder's effect`,
      ]);
    });

    it("judges a compensation's epoch by order only: a coordinator's claim leaves no event to name its holder", () => {
      const { b, jobs } = richBuilder();
      const evidence = b.build();
      const undo = evidence.effects.find((e) => e.job === jobs.saga.id && e.compensates !== null)!;
      undo.worker = 'coord-7';
      expect(judged(singleHolder, evidence).status).toBe('held');
      // But a compensation under an epoch older than the saga's own effects is a stale holder's all the same.
      undo.epoch = 0;
      expect(judged(singleHolder, evidence).text).toMatch(
        new RegExp(
          `job 4 .*: the world applied ledger #${undo.seq} delete_branch by coord-7 .* under epoch 0 after it had applied ledger #\\d+ \\S+ by w2 .* under epoch 1: a stale holder's effect`,
        ),
      );
    });

    it('fails for an effect under an epoch never claimed, and notes effects of no known job', () => {
      const evidence = cleanEvidence();
      const effect = evidence.effects.find((e) => e.job === '1' && e.step === 'email')!;
      effect.epoch = 3;
      evidence.effects.push({ ...effect, seq: 99, job: 'job-from-another-drill' });
      const verdict = judged(singleHolder, evidence);
      expect(verdict.evidence).toEqual([
        expect.stringMatching(
          new RegExp(`^job 1 .*: ledger #${effect.seq} send_email by w1 attempt 1 .* under epoch 3, which the history never claimed$`),
        ),
      ]);
      expect(verdict.note).toBe('1 ledger effect(s) name no job of the queue and were not attributed');
    });

    it('notes effects that carry no epoch, and does not place them', () => {
      const evidence = cleanEvidence();
      for (const effect of evidence.effects.filter((e) => e.job === '2')) {
        effect.epoch = null;
        effect.worker = 'w9';
      }
      expect(judged(singleHolder, evidence)).toMatchObject({
        status: 'held',
        evidence: [],
        note: '2 ledger effect(s) carry no epoch and were not placed',
      });
    });
  });

  describe("from the harness's timeline: a stale holder that went on to its complete", () => {
    const place: FailpointPlace = { point: 'before_complete', worker: 'w1', job: '1', attempt: 1 };

    /**
     * w1 ran the plan and reached before_complete; the harness saw it there
     * either paused (resumed after w2's claim) or, with no fault, late (its
     * hit after w2's claim); w2 took over and finished. With `recorded`, the
     * queue recorded w1's complete as refused.
     */
    function zombie(how: 'paused' | 'late', recorded: boolean, detail?: string): Evidence {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.write));
      job.claim('w1').run();
      // A fault that fires is recorded as fired, not as a hit too (src/faults/controller.ts).
      if (how === 'paused') b.failpoint('fault-fired', 'w1#1', place, 'pause');
      job.expire('coord-1');
      job.claim('w2').execute('write').complete();
      const at = b.failpoint(how === 'paused' ? 'resume' : 'fault-hit', 'w1#1', place);
      if (detail !== undefined) at.detail = detail;
      if (recorded) job.refused('w1', 1);
      return b.build();
    }

    it.each(['paused', 'late'] as const)("holds when the queue recorded the %s worker's write as refused", (how) => {
      expect(judged(singleHolder, zombie(how, true))).toMatchObject({ status: 'held', evidence: [] });
    });

    it.each(['paused', 'late'] as const)("fails when the history records neither the %s worker's write nor its refusal", (how) => {
      const verdict = judged(singleHolder, zombie(how, false));
      expect(verdict.evidence).toEqual([
        expect.stringMatching(
          /^job 1: w1 went on to its complete at \S+ under attempt 1 \(epoch 1\) after the job was claimed again \(event #\d+ retry→running by worker w2, epoch 2, attempt 2, .*\), and the history records neither the write nor its refusal: the stale write passed silently$/,
        ),
      ]);
    });

    it("reads where the worker was from the event's structured fields, not from its words", () => {
      expect(judged(singleHolder, zombie('late', false, 'w1 somewhere')).status).toBe('broken');
      const elsewhere = zombie('late', false);
      const hit = elsewhere.timeline[elsewhere.timeline.length - 1]!;
      hit.point = 'after_claim';
      expect(judged(singleHolder, elsewhere).status).toBe('held');
    });

    // A delay holds the worker for its ms; its write is judged from the end of the delay, when it goes on.
    it('fails when a worker delayed at its complete went on after a takeover and the history records nothing', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.write));
      job.claim('w1').run();
      b.failpoint('fault-fired', 'w1#1', place, 'delay', 60_000);
      job.expire('coord-1');
      job.claim('w2').execute('write').complete();
      // w1's delay ends here and it writes its complete; the queue records nothing of it.
      expect(judged(singleHolder, b.build()).status).toBe('broken');
    });

    it('does not judge a worker that reached its complete before anyone claimed again', () => {
      const b = new EvidenceBuilder();
      const job = b.job(planOf(STEPS.write));
      job.claim('w1').run();
      b.failpoint('fault-hit', 'w1#1', place);
      job.complete();
      expect(judged(singleHolder, b.build())).toMatchObject({ status: 'held', evidence: [] });
    });
  });
});
