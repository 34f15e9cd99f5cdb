import { describe, expect, it } from 'vitest';
import type { Evidence, WorldRecord } from '../../../src/judge/evidence.js';
import { checkInvariants } from '../../../src/judge/invariants/index.js';
import { singleHolder } from '../../../src/judge/invariants/single-holder.js';
import type { CallRow, DeliveryRow } from '../../../src/world/ledger.js';
import { cleanEvidence, EvidenceBuilder, judged, planOf, STEPS } from './evidence-builder.js';

/*
 * single-holder in the world's own record: writes and calls placed against
 * the other deliveries' starts, in the world's one sequence. Built by hand:
 * the rows are what a world records, in the order it records them.
 */

let seq = 0;
function report(job: string, worker: string, epoch: number, event: DeliveryRow['event'], more: Partial<DeliveryRow> = {}): DeliveryRow {
  seq++;
  return {
    seq,
    job,
    worker,
    attempt: epoch,
    epoch,
    event,
    write: null,
    applied: null,
    callsBefore: 0,
    at: `2026-12-03T10:00:0${seq % 10}.000Z`,
    ...more,
  };
}

function call(n: number, job: string, worker: string, fence: number, outcome: CallRow['outcome']): CallRow {
  return {
    seq: n,
    key: `k${n}`,
    tool: 'write_file',
    outcome,
    status: 200,
    faultId: null,
    effectSeq: outcome === 'applied' ? n : null,
    job,
    step: 'write',
    attempt: fence,
    worker,
    pid: 1,
    fence,
    at: '2026-12-03T10:00:00.000Z',
  };
}

/** A queue that keeps no history: single-holder can only be judged at the world. */
function withoutHistory(world: WorldRecord): Evidence {
  const evidence = cleanEvidence();
  return {
    ...evidence,
    available: { ...evidence.available, history: 'keeps no history', epoch: 'no epochs', refusals: 'refuses nothing' },
    events: [],
    world,
  };
}

function singleHolderOf(evidence: Evidence) {
  return checkInvariants(evidence, ['single-holder'])[0]!;
}

describe('single-holder at the world', () => {
  it("fails when the queue applied a holder's write announced after another delivery of the job began", () => {
    seq = 0;
    const rows = [
      report('j1', 'w1', 1, 'began'),
      report('j1', 'w2', 2, 'began'),
      report('j1', 'w1', 1, 'writing', { write: 'done' }),
      report('j1', 'w1', 1, 'wrote', { applied: true }),
    ];
    const verdict = singleHolderOf(withoutHistory({ calls: [], deliveries: rows }));
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence.join('\n')).toMatch(
      /job j1: w1's delivery \(attempt 1, epoch 1\) wrote done to the queue at .*, after w2's delivery \(attempt 2, epoch 2\) began at .*, and the queue applied it/,
    );
    expect(verdict.note).toMatch(/judged at the world only/);
  });

  it('holds when that stale write was refused, and when writes come before the next delivery began', () => {
    seq = 0;
    const refused = [
      report('j1', 'w1', 1, 'began'),
      report('j1', 'w2', 2, 'began'),
      report('j1', 'w1', 1, 'writing', { write: 'done' }),
      report('j1', 'w1', 1, 'wrote', { applied: false }),
    ];
    expect(singleHolderOf(withoutHistory({ calls: [], deliveries: refused }))).toMatchObject({ status: 'held', judged: 1 });
    seq = 0;
    const inTurn = [
      report('j1', 'w1', 1, 'began'),
      report('j1', 'w1', 1, 'writing', { write: 'retry' }),
      report('j1', 'w1', 1, 'wrote', { applied: true }),
      report('j1', 'w2', 2, 'began'),
      report('j1', 'w2', 2, 'writing', { write: 'done' }),
      report('j1', 'w2', 2, 'wrote', { applied: true }),
    ];
    expect(singleHolderOf(withoutHistory({ calls: [], deliveries: inTurn }))).toMatchObject({ status: 'held', judged: 2 });
  });

  it("fails on the queue loop's own fail applied after another delivery began, each write matched with its own outcome", () => {
    seq = 0;
    // pg-boss's timeout fail goes out; the stale handler's own done is refused before the record shows the fail applied.
    const rows = [
      report('j1', 'w1', 1, 'began'),
      report('j1', 'w2', 2, 'began'),
      report('j1', 'w1', 1, 'writing', { write: 'expired' }),
      report('j1', 'w1', 1, 'writing', { write: 'done' }),
      report('j1', 'w1', 1, 'wrote', { write: 'done', applied: false }),
      report('j1', 'w1', 1, 'wrote', { write: 'expired', applied: true }),
    ];
    const verdict = singleHolderOf(withoutHistory({ calls: [], deliveries: rows }));
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toHaveLength(1);
    expect(verdict.evidence[0]).toMatch(
      /w1's delivery \(attempt 1, epoch 1\) wrote the queue's own fail \(the handler outlived the lease\) to the queue/,
    );
    seq = 0;
    const refused = rows.map((row) => (row.event === 'wrote' && row.write === 'expired' ? { ...row, applied: false } : row));
    expect(singleHolderOf(withoutHistory({ calls: [], deliveries: refused }))).toMatchObject({ status: 'held', judged: 2 });
  });

  it('fails when the world applied a call that arrived after another delivery began, and not when it refused it', () => {
    seq = 0;
    const deliveries = [report('j1', 'w1', 1, 'began'), report('j1', 'w2', 2, 'began', { callsBefore: 1 })];
    const applied = singleHolderOf(withoutHistory({ calls: [call(1, 'j1', 'w1', 1, 'applied'), call(2, 'j1', 'w1', 1, 'applied')], deliveries }));
    expect(applied.status).toBe('broken');
    expect(applied.evidence.join('\n')).toMatch(
      /the world applied write_file \(step write, call #2\) from w1's delivery .* two holders acted on the job/,
    );
    const refused = singleHolderOf(withoutHistory({ calls: [call(1, 'j1', 'w1', 1, 'applied'), call(2, 'j1', 'w1', 1, 'failed')], deliveries }));
    expect(refused.status).toBe('held');
  });

  it("holds when an older delivery's start is reported late, after the newer holder's (its holder starved between claim and report)", () => {
    seq = 0;
    // As explore saw it under load: w3 claimed attempt 1 and was starved past its lease; w1 claimed attempt 2, said so,
    // and called; w3's start came in between. w1 is the holder: its call is no stale one.
    const deliveries = [report('j1', 'w1', 2, 'began'), report('j1', 'w3', 1, 'began')];
    const verdict = singleHolderOf(withoutHistory({ calls: [call(1, 'j1', 'w1', 2, 'applied')], deliveries }));
    expect(verdict.status).toBe('held');
    // Reported the same way, a newer delivery still makes the older holder's later call stale.
    const stale = singleHolderOf(
      withoutHistory({ calls: [call(1, 'j1', 'w1', 1, 'applied')], deliveries: [report('j1', 'w1', 1, 'began'), report('j1', 'w3', 2, 'began')] }),
    );
    expect(stale.status).toBe('broken');
  });

  it('fails when the older holder, its start reported late, calls or writes after the newer holder began', () => {
    seq = 0;
    // w3 claimed attempt 1 and was starved past its lease; w1 claimed attempt 2 and said so first. w3's own start comes
    // next, then its call and its done: both came from a stale holder, whatever order the starts were reported in.
    const deliveries = [report('j1', 'w1', 2, 'began'), report('j1', 'w3', 1, 'began', { callsBefore: 0 })];
    const called = singleHolderOf(withoutHistory({ calls: [call(1, 'j1', 'w3', 1, 'applied')], deliveries }));
    expect(called.status).toBe('broken');
    expect(called.evidence.join('\n')).toMatch(
      /from w3's delivery \(attempt 1, epoch 1\), which arrived after w1's delivery \(attempt 2, epoch 2\) began/,
    );
    const wrote = [...deliveries, report('j1', 'w3', 1, 'writing', { write: 'done' }), report('j1', 'w3', 1, 'wrote', { applied: true })];
    expect(singleHolderOf(withoutHistory({ calls: [], deliveries: wrote })).status).toBe('broken');
    expect(singleHolderOf(withoutHistory({ calls: [call(1, 'j1', 'w3', 1, 'failed')], deliveries })).status).toBe('held');
  });

  it('is not judged when the world placed nothing and the queue keeps no history', () => {
    expect(singleHolderOf(withoutHistory({ calls: [], deliveries: [] }))).toMatchObject({ status: 'not_judged' });
  });

  it("fails, from a history without epochs, when a worker's change ends a lease another worker held", () => {
    const b = new EvidenceBuilder();
    const job = b.job(planOf(STEPS.write));
    job.claim('w1').expire('coord-1');
    job.claim('w2');
    const evidence = b.build();
    // w1, stale, fails the job while w2 holds it: a running→retry written by w1.
    const last = evidence.events.filter((e) => e.kind === 'transition').at(-1)!;
    evidence.events.push({ ...last, seq: last.seq + 1, from: 'running', to: 'retry', worker: 'w1', actor: 'worker', reason: 'failed' });
    const verdict = singleHolderOf({ ...evidence, available: { ...evidence.available, epoch: 'no epochs', refusals: 'refuses nothing' } });
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence.join('\n')).toMatch(
      /running→retry by worker w1.* ended the lease w2 held .*another holder's write, and the queue applied it/,
    );
    expect(judged(singleHolder, cleanEvidence()).status).toBe('held');
  });
});
