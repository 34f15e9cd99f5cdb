import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../src/judge/evidence.js';
import { checkStaleWrites } from '../../../src/judge/invariants/stale-writes.js';
import { type Findings, historyByJob } from '../../../src/judge/invariants/support.js';
import { HarnessError } from '../../../src/kernel/errors.js';
import { EvidenceBuilder, type FailpointPlace, planOf, STEPS } from './evidence-builder.js';

/*
 * single-holder's stale-write check on its own, on hand-built evidence: the
 * harness's timeline (where a worker stood at before_complete, and when it
 * went on) against the queue's history.
 */

const W1: FailpointPlace = { point: 'before_complete', worker: 'w1', job: '1', attempt: 1 };

/** The check's findings and how many stale writes it judged. */
function checked(evidence: Evidence): { breaches: string[]; judged: number } {
  const breaches: string[] = [];
  const found: Findings = { breach: (line) => breaches.push(line), note: () => {}, judged: () => {} };
  const judged = checkStaleWrites(found, evidence.timeline, historyByJob(evidence), evidence.skewMarginMs);
  return { breaches, judged };
}

/**
 * w1 ran the plan and was paused at before_complete; its lease expired, w2
 * claimed the job and finished it; then the harness let w1 go. With
 * `refused`, the queue recorded w1's late complete as refused; with
 * `renewalRefused`, a renewal w1 made as it woke, refused.
 */
function pausedZombie(refused: boolean, process = 'w1#1', renewalRefused = false): Evidence {
  const b = new EvidenceBuilder();
  const job = b.job(planOf(STEPS.write));
  job.claim('w1').run();
  b.failpoint('fault-fired', process, W1, 'pause');
  job.expire('coord-1');
  job.claim('w2').execute('write').complete();
  b.failpoint('resume', process, W1);
  if (renewalRefused) job.refused('w1', 1, 'running', 'heartbeat');
  if (refused) job.refused('w1', 1);
  return b.build();
}

describe('checkStaleWrites', () => {
  it('fails when a worker went on to its complete after a later claim and the history records neither the write nor its refusal', () => {
    const { breaches, judged } = checked(pausedZombie(false));
    expect(judged).toBe(1);
    expect(breaches).toEqual([
      expect.stringMatching(
        /^job 1: w1 went on to its complete at \S+ under attempt 1 \(epoch 1\) after the job was claimed again \(event #\d+ retry→running by worker w2, epoch 2, attempt 2, .*\), and the history records neither the write nor its refusal: the stale write passed silently$/,
      ),
    ]);
  });

  it('holds when the queue recorded the stale write as refused', () => {
    expect(checked(pausedZombie(true))).toEqual({ breaches: [], judged: 1 });
  });

  // The job was done by w2 before w1 woke (pausedZombie): a queue that answers a complete on a done job with ok
  // records nothing of it, while w1's renewal, refused as it woke, is recorded. That refusal is not its complete's.
  it("fails when the worker's only trace after it went on is another write's refusal (a renewal), not its complete's", () => {
    const { breaches, judged } = checked(pausedZombie(false, 'w1#1', true));
    expect(judged).toBe(1);
    expect(breaches).toEqual([expect.stringMatching(/^job 1: w1 went on to its complete at .*: the stale write passed silently$/)]);
    expect(checked(pausedZombie(true, 'w1#1', true))).toEqual({ breaches: [], judged: 1 });
  });

  it('does not judge a worker that went on before anyone claimed the job again: its write was not stale', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write));
    job.claim('w1').run();
    b.failpoint('fault-fired', 'w1#1', W1, 'pause');
    b.failpoint('resume', 'w1#1', W1);
    job.complete();
    expect(checked(b.build())).toEqual({ breaches: [], judged: 0 });
  });

  it('judges a delayed worker from the end of its delay', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write));
    job.claim('w1').run();
    b.failpoint('fault-fired', 'w1#1', W1, 'delay', 60_000);
    job.expire('coord-1');
    job.claim('w2').execute('write').complete();
    expect(checked(b.build()).breaches).toHaveLength(1);
  });

  it('does not judge a worker that died after it went on: its write may never have been sent', () => {
    // zombie-complete on PostgreSQL: w1 woke to its connection ended by the server and crashed before writing.
    const crashed = pausedZombie(false);
    crashed.timeline.push({ ...crashed.timeline.at(-1)!, kind: 'exit', detail: 'exit code 1: error: terminating connection', exitCode: 1 });
    const notes: string[] = [];
    const found: Findings = { breach: () => expect.unreachable(), note: (line) => notes.push(line), judged: () => {} };
    expect(checkStaleWrites(found, crashed.timeline, historyByJob(crashed), crashed.skewMarginMs)).toBe(0);
    expect(notes).toEqual([
      expect.stringMatching(/^w1 went on to its stale complete of job 1 at \S+ and then died \(exit code 1: .*\) with no complete of it/),
    ]);
    // Killed by a signal: the same. Stopped by the drill (exit code 0): it lived to write, and the silence is the queue's.
    const killed = pausedZombie(false);
    killed.timeline.push({ ...killed.timeline.at(-1)!, kind: 'exit', detail: 'killed by SIGKILL', signal: 'SIGKILL' });
    expect(checked(killed)).toEqual({ breaches: [], judged: 0 });
    const stopped = pausedZombie(false);
    stopped.timeline.push({ ...stopped.timeline.at(-1)!, kind: 'exit', detail: 'exit code 0', exitCode: 0 });
    expect(checked(stopped).breaches).toHaveLength(1);
  });

  it('does not judge a held worker that never went on (it was killed while held)', () => {
    const evidence = pausedZombie(false);
    evidence.timeline = evidence.timeline.filter((e) => e.kind !== 'resume');
    expect(checked(evidence)).toEqual({ breaches: [], judged: 0 });
  });

  it("reads the worker from the event's structured fields, never from its process name or its words", () => {
    // A process named otherwise: the worker is still w1, and w1's refusal is found.
    expect(checked(pausedZombie(true, 'renamed#7'))).toEqual({ breaches: [], judged: 1 });
    const evidence = pausedZombie(false);
    for (const event of evidence.timeline) event.detail = 'w9 at before_complete job 1 attempt 1';
    expect(checked(evidence).breaches[0]).toMatch(/^job 1: w1 went on/);
  });

  it('fails closed on an event at before_complete that does not say which worker it was', () => {
    const evidence = pausedZombie(false);
    delete evidence.timeline.find((e) => e.kind === 'fault-fired')!.worker;
    expect(() => checked(evidence)).toThrow(HarnessError);
    expect(() => checked(evidence)).toThrow(/does not say which worker, job and attempt: it cannot be placed/);
  });
});
