import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../src/judge/evidence.js';
import { checkInvariants } from '../../../src/judge/invariants/index.js';
import { leaseRespected } from '../../../src/judge/invariants/lease-respected.js';
import { utc } from '../../../src/kernel/clock.js';
import type { Actor, JobStatus } from '../../../src/kernel/vocabulary.js';
import type { Transition } from '../../../src/port/snapshot.js';
import { cleanEvidence, EvidenceBuilder, judged, LEASE_MS, planOf, richBuilder, SKEW_MS, STEPS, T0 } from './evidence-builder.js';

const JOB = String.raw`job 1 \(key [0-9a-f]{8}…\)`;

/**
 * One job on the caller's clock, as a drill would leave it: w1's clock `w1Skew`
 * off the harness's (measured within ±1 ms), the coordinator's exact. w1
 * claims at T0 (true time) with a lease of LEASE_MS by its clock, renews once
 * 10 s later, and the coordinator takes the job back at `takenAt` (true time);
 * every stamp is written by its writer's own clock.
 */
function skewed(w1Skew: number, takenAt: number, clocks: 'measured' | 'as written' = 'measured'): Evidence {
  const b = new EvidenceBuilder();
  const job = b.job(planOf(STEPS.write));
  const evidence = b.evidence;
  evidence.events = evidence.events.filter((e) => e.jobId !== job.id);
  const event = (seq: number, at: number, from: JobStatus | null, to: JobStatus, actor: Actor, worker: string | null, epoch: number): Transition => ({
    seq,
    jobId: job.id,
    kind: 'transition',
    from,
    to,
    attempt: epoch,
    epoch,
    worker,
    actor,
    reason: `${from ?? '(new)'} to ${to}`,
    at: utc(at),
  });
  const renewedAt = T0 + 10_000;
  evidence.events.push(
    event(1, T0 - 1_000, null, 'pending', 'producer', null, 0),
    event(2, T0 + w1Skew, 'pending', 'running', 'worker', 'w1', 1),
    event(3, takenAt, 'running', 'retry', 'coordinator', 'coordinator', 1),
  );
  evidence.leases.push(
    { process: 'w1', at: utc(T0 + 2), job: job.id, attempt: 1, epoch: 1, worker: 'w1', leaseUntil: utc(T0 + w1Skew + LEASE_MS), by: 'claim' },
    {
      process: 'w1',
      at: utc(renewedAt + 2),
      job: job.id,
      attempt: 1,
      epoch: 1,
      worker: 'w1',
      leaseUntil: utc(renewedAt + w1Skew + LEASE_MS),
      by: 'renewal',
    },
  );
  Object.assign(job.row, { status: 'retry', attempts: 1, epoch: 1 });
  evidence.queueClock = clocks === 'measured' ? 'caller' : 'server';
  evidence.clocks = [
    { process: 'w1', lowMs: w1Skew - 1, highMs: w1Skew + 1, samples: 12 },
    { process: 'coordinator', lowMs: -1, highMs: 1, samples: 4 },
  ];
  return evidence;
}

/** The true end of the lease of `skewed`: its renewal's. */
const TRUE_END = T0 + 10_000 + LEASE_MS;

describe('lease-respected', () => {
  it('holds on a clean run: every lease ends by its holder, or is taken back after its end and the margin', () => {
    expect(judged(leaseRespected, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    const rich = judged(leaseRespected, richBuilder().b.build());
    expect(rich.status).toBe('held');
    expect(rich.judged).toBeGreaterThan(0);
  });

  it('holds for a takeover after the end of the last renewal heard of', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.write)).claim('w1').renew().expire('coord-1');
    expect(judged(leaseRespected, b.build())).toMatchObject({ status: 'held', judged: 1 });
  });

  it('fails for a takeover that came more than the skew margin before the lease ended, saying by how much', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write)).claim('w1');
    job.renew();
    job.transition('retry', 'coordinator', 'coord-1', 'lease of w1 expired');
    const verdict = judged(leaseRespected, b.build());
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${JOB}: taken back 29900 ms before the lease of w1 truly ended \\(the skew margin allows ${SKEW_MS} ms\\): ` +
            'event #3 running→retry by coordinator coord-1, epoch 1, attempt 1, at .*, while its renewal set it until .* \\(epoch 1\\)',
        ),
      ),
    ]);
  });

  it("places every stamp by its writer's measured clock: a holder behind within the margin, taken back at its true end, holds", () => {
    // As written, w1's lease ended 900 ms before the takeover's stamp; on the harness's clock, they met.
    expect(judged(leaseRespected, skewed(-900, TRUE_END + 1))).toMatchObject({ status: 'held', judged: 1 });
    // And w1 ahead by 900 ms: as written, the takeover came 900 ms before the lease's end, within the margin; in truth, after it.
    expect(judged(leaseRespected, skewed(900, TRUE_END + 1)).status).toBe('held');
  });

  it("fails a takeover that only the measured clocks show early: the holder's clock behind hid it", () => {
    // Taken back 1200 ms before the lease's true end; as written (w1's clock 900 ms behind), only 300 ms before.
    expect(judged(leaseRespected, skewed(-900, TRUE_END - 1_200, 'as written')).status).toBe('held');
    const verdict = judged(leaseRespected, skewed(-900, TRUE_END - 1_200));
    expect(verdict.status).toBe('broken');
    expect(verdict.text).toMatch(/taken back 119\d ms before the lease of w1 truly ended \(the skew margin allows 1000 ms\)/);
    expect(verdict.text).toMatch(/its renewal set it until .* by w1's clock −900 ms/);
    expect(verdict.note).toBe("clocks measured against the harness's: w1 −900 ms (±1)");
  });

  it("counts the measured clocks' uncertainty for the queue: a takeover early by the margin and less than the bound holds", () => {
    const evidence = skewed(-900, TRUE_END - SKEW_MS - 5);
    evidence.clocks[0] = { process: 'w1', lowMs: -910, highMs: -890, samples: 2 };
    expect(judged(leaseRespected, evidence).status).toBe('held');
    evidence.clocks[0] = { process: 'w1', lowMs: -901, highMs: -899, samples: 2 };
    expect(judged(leaseRespected, evidence).status).toBe('broken');
  });

  it('counts only the grants heard of before the takeover: a stale renewal applied after it is not the lease it took', () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write)).claim('w1');
    b.advance(LEASE_MS + SKEW_MS + 1);
    const lease = job.lease!;
    job.transition('retry', 'coordinator', 'coord-1', 'lease of w1 expired');
    job.lease = null;
    // The zombie's renewal, applied by a queue that fences nothing, heard of after the takeover.
    b.evidence.leases.push({ ...b.evidence.leases[0]!, at: b.tick(), leaseUntil: utc(b.now + LEASE_MS), by: 'renewal', epoch: lease.epoch });
    expect(judged(leaseRespected, b.build()).status).toBe('held');
  });

  it("takes a release by the holder's own name for the holder's own write (its restarted incarnation sweeping), never a takeover", () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.write)).claim('w1').retry();
    expect(judged(leaseRespected, b.build())).toMatchObject({ status: 'held', judged: 1 });
  });

  it("leaves another holder's write to single-holder: a done by a worker that did not hold the lease is no takeover", () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write)).claim('w1');
    job.transition('done', 'worker', 'w2', 'done by a worker that never held it');
    expect(judged(leaseRespected, b.build())).toMatchObject({ status: 'held', judged: 1 });
  });

  it('leaves a lease it cannot place in time unjudged, and says whose clock was never measured', () => {
    const evidence = skewed(-900, TRUE_END - 1_200);
    evidence.clocks = evidence.clocks.filter((c) => c.process !== 'coordinator');
    const verdict = judged(leaseRespected, evidence);
    expect(verdict).toMatchObject({ status: 'held', judged: 0 });
    expect(verdict.note).toMatch(/^not placed in time \(the clock of coordinator was never measured\)/);
  });

  it('is not judged where the queue cannot tell the leases it grants', () => {
    const evidence = cleanEvidence();
    evidence.available = { ...evidence.available, renewals: 'renews inside its own loop' };
    const [verdict] = checkInvariants(evidence, ['lease-respected']);
    expect(verdict).toMatchObject({ status: 'not_judged', judged: 0 });
    expect(verdict!.note).toMatch(/needs renewals .*: renews inside its own loop/);
  });
});
