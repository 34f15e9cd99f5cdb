import { describe, expect, it } from 'vitest';
import type { Evidence, StarvedSpan } from '../../src/judge/evidence.js';
import { utc } from '../../src/kernel/clock.js';
import type { CallRow, DeliveryRow } from '../../src/world/ledger.js';
import { judged, runOf } from './crafted-run.js';
import { EvidenceBuilder, LEASE_MS, planOf, STEPS } from './invariants/evidence-builder.js';

/*
 * The one safety breach a starved machine explains: w1 is starved past its
 * lease before its call (no fault fired in it), w2 takes the job over and
 * finishes it, and w1's late call reaches a world that takes no fencing token,
 * which applies it: two holders acted (single-holder, at the world's record).
 * Seen on BullMQ in zombie-complete with four busy loops on two cores. The
 * same run fails where the world fenced (it should have refused), where a
 * fault of the scenario stalled w1, and where w1 was not starved.
 */

interface Shape {
  fenced?: boolean;
  starved?: boolean;
  faultOnHolder?: boolean;
  /** w1 was starved between its claim and its report of it: its start reaches the world after w2's. */
  lateReport?: boolean;
}

function starvedStaleCall(options: Shape = {}): Evidence {
  const b = new EvidenceBuilder();
  const job = b.job(planOf(STEPS.write));
  job.claim('w1');
  const claimedAt = b.now;
  job.expire('w2', 'worker').claim('w2');
  const takenAt = b.now;
  job.run().complete();
  const evidence = b.build();
  const delivery = (seq: number, worker: string, epoch: number, at: number): DeliveryRow => ({
    seq,
    job: job.id,
    worker,
    attempt: epoch,
    epoch,
    event: 'began',
    write: null,
    applied: null,
    callsBefore: 0,
    at: utc(at),
  });
  const staleCall: CallRow = {
    seq: 1,
    key: 'k1',
    tool: 'write_file',
    outcome: 'applied',
    status: 200,
    faultId: null,
    effectSeq: 1,
    job: job.id,
    step: 'write',
    attempt: 1,
    worker: 'w1',
    pid: 1,
    fence: 1,
    at: utc(takenAt + 50),
  };
  evidence.world = {
    calls: [staleCall],
    deliveries: options.lateReport
      ? [delivery(1, 'w2', 2, takenAt), delivery(2, 'w1', 1, takenAt + 20)]
      : [delivery(1, 'w1', 1, claimedAt), delivery(2, 'w2', 2, takenAt)],
    fenced: options.fenced ?? false,
  };
  const starvedUntil = options.lateReport ? takenAt + 10 : claimedAt + 100 + LEASE_MS;
  const span: StarvedSpan = {
    process: 'w1#1',
    from: utc(claimedAt + 100),
    to: utc(starvedUntil),
    ms: starvedUntil - claimedAt - 100,
    cause: 'stalled',
  };
  evidence.starved = options.starved === false ? [] : [span];
  if (options.faultOnHolder) {
    evidence.timeline.push({ at: utc(claimedAt + 50), kind: 'fault-fired', process: 'w1#1', detail: 'block at before_call', worker: 'w1' });
  }
  evidence.endedAt = utc(b.now + 500);
  evidence.releasedAt = utc(claimedAt - 500);
  evidence.ending = 'at-rest';
  return evidence;
}

describe('a stale call a plain world applied, from a holder starved past its lease', () => {
  it('is inconclusive, saying whose call, which world and which span', () => {
    const report = judged(runOf(starvedStaleCall()));
    expect(report.invariants.find((v) => v.id === 'single-holder')?.status).toBe('broken');
    expect(report.verdict).toBe('inconclusive');
    expect(report.inconclusive).toHaveLength(1);
    expect(report.inconclusive![0]).toMatch(
      /^single-holder: w1's call #1 \(write_file\) reached a world that takes no fencing token after w1 lost its lease for starvation \(\d+ ms of its delivery not run, w1 or the harness; w1#1 was not run for 30000 ms, from /,
    );
  });

  it('fails where the world fenced, where a fault stalled the holder, and where the holder was not starved', () => {
    for (const options of [{ fenced: true }, { faultOnHolder: true }, { starved: false }]) {
      const report = judged(runOf(starvedStaleCall(options)));
      expect(report.verdict, JSON.stringify(options)).toBe('fail');
      expect(report.inconclusive).toBeNull();
    }
  });

  it("judges the holder whose own start reached the world late, after the newer holder's: inconclusive starved, failed otherwise", () => {
    const report = judged(runOf(starvedStaleCall({ lateReport: true })));
    expect(report.verdict).toBe('inconclusive');
    expect(report.inconclusive![0]).toMatch(
      /^single-holder: w1's call #1 \(write_file\) reached a world that takes no fencing token after w1 lost its lease/,
    );
    for (const options of [{ fenced: true }, { faultOnHolder: true }, { starved: false }]) {
      const failed = judged(runOf(starvedStaleCall({ ...options, lateReport: true })));
      expect(failed.verdict, JSON.stringify(options)).toBe('fail');
      expect(failed.invariants.find((v) => v.id === 'single-holder')?.evidence.join('\n')).toMatch(
        /from w1's delivery \(attempt 1, epoch 1\), which arrived after w2's delivery \(attempt 2, epoch 2\) began/,
      );
    }
  });
});
