import { describe, expect, it } from 'vitest';
import type { ScenarioVerdict } from '../../src/report/schema.js';
import type { Verdict } from '../../src/scenarios/evidence.js';
import { scenarioVerdict, summarize } from '../../src/report/verdict.js';
import { drillReport } from './fixture.js';

const broken: Verdict = { id: 'no-lost-job', statement: 's', holds: false, evidence: ['job 1 is still pending'] };
const held: Verdict = { id: 'no-lost-job', statement: 's', holds: true, evidence: [] };
const wrongJob = { ...drillReport().scenarios[0]!.jobs[0]!, matches: false };

describe('scenarioVerdict', () => {
  // The first cause wins: error, then fail, then vacuous.
  it.each<{ why: string; error: string | null; invariants: Verdict[]; expectations: string[]; jobs: Array<typeof wrongJob>; unfired: string[]; verdict: ScenarioVerdict }>([
    { why: 'all held, every fault fired', error: null, invariants: [held], expectations: [], jobs: [], unfired: [], verdict: 'pass' },
    { why: 'an armed fault never fired', error: null, invariants: [held], expectations: [], jobs: [], unfired: ['crash at after_write never fired'], verdict: 'vacuous' },
    { why: 'an invariant broke', error: null, invariants: [held, broken], expectations: [], jobs: [], unfired: [], verdict: 'fail' },
    { why: 'an expectation mismatch', error: null, invariants: [held], expectations: ['job 1 ended done'], jobs: [], unfired: [], verdict: 'fail' },
    { why: 'a job that does not match', error: null, invariants: [held], expectations: [], jobs: [wrongJob], unfired: [], verdict: 'fail' },
    { why: 'a broken invariant and an unfired fault (a finding beats vacuity)', error: null, invariants: [broken], expectations: [], jobs: [], unfired: ['x never fired'], verdict: 'fail' },
    { why: 'a harness failure over everything', error: 'world did not start', invariants: [broken], expectations: ['x'], jobs: [], unfired: ['y'], verdict: 'error' },
  ])('$why: $verdict', ({ verdict, ...scenario }) => {
    expect(scenarioVerdict(scenario)).toBe(verdict);
  });
});

describe('summarize', () => {
  it('counts each verdict', () => {
    const verdicts: ScenarioVerdict[] = ['pass', 'fail', 'fail', 'vacuous', 'error', 'pass', 'pass'];
    expect(summarize(verdicts.map((verdict) => ({ verdict })))).toEqual({ scenarios: 7, passed: 3, failed: 2, vacuous: 1, errors: 1 });
  });

  it('agrees with the fixture, whose verdicts follow from its contents', () => {
    const report = drillReport();
    expect(report.scenarios.map((s) => scenarioVerdict(s))).toEqual(['pass', 'fail', 'vacuous', 'error']);
    expect(summarize(report.scenarios)).toEqual(report.summary);
  });
});
