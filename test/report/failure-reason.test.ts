import { describe, expect, it } from 'vitest';
import { failureReason, REASON_CHARS } from '../../src/report/failure-reason.js';
import { failuresFirst } from '../../src/report/failures-first.js';
import type { ScenarioReport } from '../../src/report/schema.js';
import {
  drillReport,
  INCONCLUSIVE_LINES,
  INTERRUPTED_LINE,
  inconclusiveScenario,
  interruptedReport,
  NOTHING_JUDGED_LINE,
  nothingJudgedReport,
} from './fixture.js';

/*
 * Why a scenario did not pass, in one line: never empty for a verdict other
 * than pass, whatever the scenario holds, and the first cause in the order a
 * reader needs (broken invariants, the job that ended wrong, the fault that
 * never fired, the harness's error).
 */

const [passed, failed, vacuous, harnessError] = drillReport().scenarios as [ScenarioReport, ScenarioReport, ScenarioReport, ScenarioReport];

/** The failing fixture with its invariants all held: only its job ended wrong. */
function expectationOnly(): ScenarioReport {
  return { ...failed, invariants: failed.invariants.map((v) => ({ ...v, status: 'held' as const, evidence: [] })) };
}

describe('failureReason', () => {
  it.each<[string, ScenarioReport, string, RegExp]>([
    ['a broken invariant, with its first line of evidence', failed, 'invariant', /^broke no-duplicate-effect, review-routing: ledger: charge key=/],
    [
      'a job that did not end as expected',
      expectationOnly(),
      'expectation',
      /^job 1 \(ab12cd34ef56ab78\): expected review matching \/unknown outcome\/, ended done$/,
    ],
    ['a fault that never fired', vacuous, 'unfired', /^crash at after_verify \(rule kill-after-verify, worker=w9\) never fired: 0 hits$/],
    ['an invariant with nothing to judge', nothingJudgedReport().scenarios[0]!, 'nothing-judged', new RegExp(`^${NOTHING_JUDGED_LINE.slice(0, 40)}`)],
    [
      "the harness's error, on one line",
      harnessError,
      'error',
      /^the harness failed: QD_WORLD_NOT_READY: .* within 5000 ms its log ends: EADDRINUSE$/,
    ],
    [
      'starvation, not the invariant it explains',
      inconclusiveScenario(),
      'starved',
      /^the machine starved it: no-lost-job: the drill stopped before rest/,
    ],
    ['an interruption', interruptedReport().scenarios[1]!, 'interrupted', new RegExp(`^interrupted, so not judged: ${INTERRUPTED_LINE}$`)],
  ])('gives %s', (_, scenario, kind, text) => {
    const reason = failureReason(scenario)!;
    expect(reason.kind).toBe(kind);
    expect(reason.text).toMatch(text);
  });

  it('is null for a pass, and never empty for any other verdict, even with no finding recorded', () => {
    expect(failureReason(passed)).toBeNull();
    const bare: ScenarioReport = { ...expectationOnly(), expectations: [], jobs: [] };
    expect(failureReason(bare)).toEqual({ kind: 'unrecorded', text: 'fail with no finding recorded (report.json holds the whole scenario)' });
  });

  it('counts the lines it does not quote, and cuts a long one', () => {
    const starved = failureReason(inconclusiveScenario())!.text;
    expect(starved).toMatch(/ \(and 1 more\)$/);
    expect(starved.length).toBeLessThanOrEqual('the machine starved it: '.length + REASON_CHARS + ' (and 1 more)'.length);
    expect(starved).toContain('…');
    expect(INCONCLUSIVE_LINES[0]!.length).toBeGreaterThan(REASON_CHARS);
  });
});

describe('failuresFirst', () => {
  it('lists failures and errors, then inconclusive, then vacuous, then the rest, each in the report’s order', () => {
    const verdicts = ['pass', 'vacuous', 'error', 'inconclusive', 'not_judged', 'fail', 'pass'] as const;
    expect(failuresFirst(verdicts.map((verdict) => ({ verdict })))).toEqual([2, 5, 3, 1, 0, 4, 6]);
  });
});
