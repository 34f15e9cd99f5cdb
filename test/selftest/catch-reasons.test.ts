import { describe, expect, it } from 'vitest';
import { NEVER_AT_REST } from '../../src/judge/invariants/no-lost-job.js';
import { queueImpl } from '../../src/queues/registry.js';
import type { ScenarioReport } from '../../src/report/schema.js';
import { brokenOnEvidence, catchIn, selftest } from '../../src/selftest/selftest.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A variant is caught only for the reason it declares: one of its own
 * invariants broken on evidence about the queue. Not by another invariant, not
 * by a drill that ran out of time, not by a harness error.
 */

/** A failed scenario whose invariants broke with the given evidence lines. */
function failed(name: string, broken: Record<string, string[]>, verdict: ScenarioReport['verdict'] = 'fail'): ScenarioReport {
  return {
    name,
    verdict,
    invariants: Object.entries(broken).map(([id, evidence]) => ({ id, status: 'broken', evidence })),
    faults: [{}],
    worldFaults: [],
    replay: `queue-drill run --only ${name}`,
  } as unknown as ScenarioReport;
}

describe('catches for the right reason', () => {
  it('does not count a no-lost-job that broke only because the drill ran out of time', () => {
    const timeout = failed('slow', { 'no-lost-job': [`${NEVER_AT_REST}: 1 job(s) unfinished (job 1 running)`] });
    expect(brokenOnEvidence(timeout)).toEqual([]);
    expect(catchIn([timeout], ['no-lost-job'])).toBeNull();
    const stuck = failed('stuck', {
      'no-lost-job': [`${NEVER_AT_REST}: 1 job(s) unfinished (job 1 running)`, 'job 1 (key 1a2b3c4d…): running at rest, leased by w1'],
    });
    expect(catchIn([timeout, stuck], ['no-lost-job'])).toMatchObject({ invariant: 'no-lost-job', scenario: 'stuck' });
  });

  it('does not count a harness error, whatever its verdicts say', () => {
    const error = failed('crashed-harness', { 'single-holder': ['job 1: two holders'] }, 'error');
    expect(catchIn([error], ['single-holder'])).toBeNull();
  });

  it('fails a variant whose declaration is wrong, even though the drill flags it', { timeout: 120_000 }, async () => {
    const run = tempRunDir('selftest-declaration');
    try {
      // history-gap leaves the sweep of an expired lease out of the history: history-complete breaks, review-sticky cannot.
      const misdeclared = { ...queueImpl('history-gap'), breaks: ['review-sticky'] as const };
      const [row] = await selftest({
        file: 'scenarios.yaml',
        only: ['crash-after-claim'],
        queues: [],
        impls: [misdeclared],
        exploreRuns: 0,
        seed: 7,
        parallel: 1,
        out: run.dir,
        toolVersion: 'test',
        signal: new AbortController().signal,
      });
      expect(row).toMatchObject({ queue: 'history-gap', broken: true, expectedBreaks: ['review-sticky'], caughtBy: null, ok: false });
      expect(row!.flagged.flatMap((f) => f.broken)).toContain('history-complete');
    } finally {
      run.remove();
    }
  });
});
