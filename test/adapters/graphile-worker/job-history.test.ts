import { describe, expect, it } from 'vitest';
import type { HistoryRow } from '../../../src/adapters/graphile-worker/history-rows.js';
import { rebuild } from '../../../src/adapters/graphile-worker/job-history.js';

/*
 * The trigger's row images in the judge's words, without a server: each case
 * is a sequence of images as graphile's own statements leave them.
 */

let seq = 0;
const T0 = Date.parse('2026-12-01T10:00:00.000Z');
function row(over: Partial<HistoryRow> & { op?: HistoryRow['op'] }): HistoryRow {
  seq++;
  return {
    seq,
    op: 'UPDATE',
    jobId: '1',
    key: 'k1',
    payload: JSON.stringify({ action: 'plan', payload: '{"a":1}' }),
    attempts: 0,
    maxAttempts: 3,
    lockedBy: null,
    lockedAt: null,
    runAt: new Date(T0),
    lastError: null,
    createdAt: new Date(T0),
    tx: String(seq),
    byApp: 'qd:producer',
    at: new Date(T0 + seq * 10),
    ...over,
  };
}
const claim = (attempts: number, worker: string) =>
  row({ attempts, lockedBy: worker, lockedAt: new Date(T0 + seq * 10), byApp: `qd:worker:${worker}` });

describe('graphile-worker history rebuilt from the trigger', () => {
  it('a claim, a failure, the coordinator unlocking a dead worker, and a done: states, epochs, workers and actors', () => {
    seq = 0;
    const rows = [
      row({ op: 'INSERT' }),
      claim(1, 'w1#10'),
      row({ attempts: 1, lastError: '503', runAt: new Date(T0 + 5_000), byApp: 'qd:worker:w1#10' }),
      claim(2, 'w2#11'),
      row({ attempts: 2, byApp: 'qd:coordinator:c' }),
      claim(3, 'w1#12'),
      row({ op: 'DELETE', attempts: 3, lockedBy: 'w1#12', byApp: 'qd:worker:w1#12' }),
    ];
    const { jobs, history } = rebuild(rows, 300, new Map());
    expect(history.map((t) => `${t.from}>${t.to} ${t.actor} ${t.worker} e${t.epoch}`)).toEqual([
      'null>pending producer null e0',
      'pending>running worker w1 e1',
      'running>retry worker w1 e1',
      'retry>running worker w2 e2',
      'running>retry coordinator w2 e2',
      'retry>running worker w1 e3',
      'running>done worker w1 e3',
    ]);
    expect(history[2]?.retryDelayMs).toBeGreaterThan(4_000);
    expect(jobs).toEqual([expect.objectContaining({ id: '1', status: 'done', outcome: 'done', attempts: 3, holder: null, payload: '{"a":1}' })]);
  });

  it("a zombie's late complete is shown under its own old epoch, as graphile accepted it", () => {
    seq = 0;
    const rows = [row({ op: 'INSERT' }), claim(1, 'w1#10'), row({ attempts: 1, byApp: 'qd:coordinator:c' }), claim(2, 'w2#11')];
    rows.push(row({ op: 'DELETE', attempts: 2, lockedBy: 'w2#11', byApp: 'qd:worker:w1#10' }));
    const last = rebuild(rows, 300, new Map()).history.at(-1);
    expect(last).toMatchObject({ from: 'running', to: 'done', worker: 'w1', epoch: 1, attempt: 2 });
  });

  it("a worker's failJob then its own fail-for-good before the retry's run_at is one change to review; later, a person's reschedule is review to pending", () => {
    seq = 0;
    const rows = [
      row({ op: 'INSERT' }),
      claim(1, 'w1#10'),
      row({ attempts: 1, lastError: 'approval required', runAt: new Date(T0 + 60_000), byApp: 'qd:worker:w1#10' }),
      row({ attempts: 1, maxAttempts: 1, lastError: 'approval required', runAt: new Date(T0 + 60_000), byApp: 'qd:worker:w1#10' }),
      row({ attempts: 1, maxAttempts: 2, lastError: 'approval required', byApp: 'qd:human:drill' }),
    ];
    const { jobs, history } = rebuild(rows, 300, new Map([['1', { outcome: 'awaiting_approval' as const, epoch: 1 }]]));
    expect(history.map((t) => `${t.from}>${t.to} ${t.actor}`)).toEqual([
      'null>pending producer',
      'pending>running worker',
      'running>review worker',
      'review>pending human',
    ]);
    expect(jobs[0]).toMatchObject({ status: 'pending', attempts: 1, maxAttempts: 2 });
  });

  it('a worker that died between failJob and its fail-for-good leaves the job in retry, as the history shows', () => {
    seq = 0;
    const rows = [
      row({ op: 'INSERT' }),
      claim(1, 'w1#10'),
      row({ attempts: 1, lastError: 'x', runAt: new Date(T0 + 100), byApp: 'qd:worker:w1#10' }),
    ];
    const { jobs } = rebuild(rows, 300, new Map());
    expect(jobs[0]).toMatchObject({ status: 'retry', outcome: null });
  });

  it('the coordinator unlocking and failing for good in one transaction is one change, running to review, with its reason', () => {
    seq = 0;
    const rows = [row({ op: 'INSERT' }), claim(1, 'w1#10')];
    rows.push(row({ attempts: 1, tx: 'T', byApp: 'qd:coordinator:c' }));
    rows.push(row({ attempts: 1, maxAttempts: 1, tx: 'T', byApp: 'qd:coordinator:c' }));
    rows.push(row({ attempts: 1, maxAttempts: 1, tx: 'T', lastError: 'outcome unknown', byApp: 'qd:coordinator:c' }));
    const { jobs, history } = rebuild(rows, 300, new Map([['1', { outcome: 'review' as const, epoch: 1 }]]));
    expect(history.at(-1)).toMatchObject({ from: 'running', to: 'review', actor: 'coordinator', worker: 'w1', epoch: 1 });
    expect(history.at(-1)?.reason).toContain('outcome unknown');
    expect(jobs[0]).toMatchObject({ status: 'review', outcome: 'review', reviewReason: 'outcome unknown' });
  });

  it("replace: a waiting job's reset is the producer's change to pending; a locked job's key taken for a second job stays its key", () => {
    seq = 0;
    // Every image after the reset carries the payload the enqueue replaced it with.
    const payload = JSON.stringify({ action: 'plan', payload: '{"a":2}' });
    const rows = [
      row({ op: 'INSERT' }),
      claim(1, 'w1#10'),
      row({ attempts: 1, lastError: '503', runAt: new Date(T0 + 5_000), byApp: 'qd:worker:w1#10' }),
      // An enqueue of k1 while it waits: attempts reset, run at once, the new payload.
      row({ attempts: 0, payload }),
      { ...claim(1, 'w1#10'), payload },
      // An enqueue of k1 while it is locked: its key cleared, its attempts used up, and a second job inserted under k1.
      row({ attempts: 3, key: null, lockedBy: 'w1#10', lockedAt: new Date(T0), payload }),
      row({ op: 'INSERT', jobId: '2', payload }),
      row({ attempts: 3, key: null, byApp: 'qd:worker:w1#10', payload }),
    ];
    const { jobs, history } = rebuild(rows, 300, new Map());
    expect(history.filter((t) => t.jobId === '1').map((t) => `${t.from}>${t.to} ${t.actor}`)).toEqual([
      'null>pending producer',
      'pending>running worker',
      'running>retry worker',
      'retry>pending producer',
      'pending>running worker',
      'running>review worker',
    ]);
    expect(history[3]?.reason).toMatch(/replaced by an enqueue of its key/);
    expect(jobs).toEqual([
      expect.objectContaining({
        id: '1',
        key: 'k1',
        payload: '{"a":2}',
        status: 'review',
        reviewReason: expect.stringMatching(/jobKeyMode replace/),
      }),
      expect.objectContaining({ id: '2', key: 'k1', status: 'pending' }),
    ]);
  });
});
