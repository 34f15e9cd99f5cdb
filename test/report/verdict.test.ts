import { describe, expect, it } from 'vitest';
import { type Evidence, INVARIANT_IDS, type Verdict } from '../../src/judge/evidence.js';
import { INVARIANTS, notJudgedReason } from '../../src/judge/invariants/index.js';
import type { ScenarioVerdict } from '../../src/report/schema.js';
import { allJudgedPassed, drillExitCode, scenarioVerdict, summarize } from '../../src/report/verdict.js';
import {
  drillReport,
  INCONCLUSIVE_LINES,
  inconclusiveReport,
  interruptedReport,
  NEEDS_HISTORY,
  NO_HISTORY_NOTE,
  notJudgedReport,
  STUB_AVAILABLE,
} from './fixture.js';

const broken: Verdict = { id: 'no-lost-job', statement: 's', status: 'broken', judged: 1, evidence: ['job 1 is still pending'] };
const held: Verdict = { id: 'no-lost-job', statement: 's', status: 'held', judged: 1, evidence: [] };
const notJudged: Verdict = { id: 'attempts-bounded', statement: 's', status: 'not_judged', judged: 0, evidence: [], note: NO_HISTORY_NOTE };
const NOTHING = 'dedupe-on-enqueue had nothing to judge, yet 4 producers enqueue the same keys: it should have judged a raced key';
const wrongJob = { ...drillReport().scenarios[0]!.jobs[0]!, matches: false };

describe('scenarioVerdict', () => {
  // The first cause wins: error, then fail, then vacuous.
  it.each<{
    why: string;
    error: string | null;
    invariants: Verdict[];
    expectations: string[];
    jobs: Array<typeof wrongJob>;
    unfired: string[];
    nothingJudged?: string[];
    verdict: ScenarioVerdict;
  }>([
    { why: 'all held, every fault fired', error: null, invariants: [held], expectations: [], jobs: [], unfired: [], verdict: 'pass' },
    {
      why: 'an armed fault never fired',
      error: null,
      invariants: [held],
      expectations: [],
      jobs: [],
      unfired: ['crash at after_write never fired'],
      verdict: 'vacuous',
    },
    {
      why: 'an invariant had nothing to judge where the scenario should have given it something',
      error: null,
      invariants: [held],
      expectations: [],
      jobs: [],
      unfired: [],
      nothingJudged: [NOTHING],
      verdict: 'vacuous',
    },
    {
      why: 'a broken invariant beside one that had nothing to judge (a finding beats vacuity)',
      error: null,
      invariants: [broken],
      expectations: [],
      jobs: [],
      unfired: [],
      nothingJudged: [NOTHING],
      verdict: 'fail',
    },
    {
      why: 'missing evidence (a harness error) beside an invariant that had nothing to judge',
      error: "evidence missing, so nothing can be judged: the world's ledger could not be read",
      invariants: [held],
      expectations: [],
      jobs: [],
      unfired: [],
      nothingJudged: [NOTHING],
      verdict: 'error',
    },
    { why: 'an invariant broke', error: null, invariants: [held, broken], expectations: [], jobs: [], unfired: [], verdict: 'fail' },
    { why: 'an expectation mismatch', error: null, invariants: [held], expectations: ['job 1 ended done'], jobs: [], unfired: [], verdict: 'fail' },
    { why: 'a job that does not match', error: null, invariants: [held], expectations: [], jobs: [wrongJob], unfired: [], verdict: 'fail' },
    {
      why: 'a broken invariant and an unfired fault (a finding beats vacuity)',
      error: null,
      invariants: [broken],
      expectations: [],
      jobs: [],
      unfired: ['x never fired'],
      verdict: 'fail',
    },
    {
      why: 'a harness failure over everything',
      error: 'world did not start',
      invariants: [broken],
      expectations: ['x'],
      jobs: [],
      unfired: ['y'],
      verdict: 'error',
    },
    // Not judged is not a finding: it neither fails a scenario nor hides one.
    {
      why: 'an invariant not judged beside one held',
      error: null,
      invariants: [held, notJudged],
      expectations: [],
      jobs: [],
      unfired: [],
      verdict: 'pass',
    },
    {
      why: 'every invariant not judged',
      error: null,
      invariants: [notJudged, { ...notJudged, id: 'history-complete' }],
      expectations: [],
      jobs: [],
      unfired: [],
      verdict: 'pass',
    },
    {
      why: 'an invariant not judged and an unfired fault',
      error: null,
      invariants: [notJudged],
      expectations: [],
      jobs: [],
      unfired: ['x never fired'],
      verdict: 'vacuous',
    },
    {
      why: 'an invariant not judged beside one broken',
      error: null,
      invariants: [notJudged, broken],
      expectations: [],
      jobs: [],
      unfired: [],
      verdict: 'fail',
    },
    {
      why: 'an invariant not judged and a job that ended wrong',
      error: null,
      invariants: [notJudged],
      expectations: ['job 1 ended done'],
      jobs: [wrongJob],
      unfired: [],
      verdict: 'fail',
    },
  ])('$why: $verdict', ({ verdict, nothingJudged = [], ...scenario }) => {
    expect(
      scenarioVerdict({ ...scenario, nothingJudged, notJudged: null, notSupported: null, unjudgedChecks: [], interrupted: null, inconclusive: null }),
    ).toBe(verdict);
  });
});

describe('a scenario the harness was stopped in before rest', () => {
  const halfRun = {
    error: null,
    notJudged: null,
    notSupported: null,
    unjudgedChecks: [],
    interrupted: 'interrupted by SIGINT 2.1 s in, before the drill reached rest',
    inconclusive: null,
    invariants: [notJudged],
    expectations: [],
    jobs: [wrongJob],
    unfired: [],
    nothingJudged: [],
  };

  it('is interrupted, not failed, though its jobs are not where the scenario expects them', () => {
    expect(scenarioVerdict(halfRun)).toBe('interrupted');
    // The same contents without the interruption: a failure.
    expect(scenarioVerdict({ ...halfRun, interrupted: null })).toBe('fail');
  });

  it('is an error when the harness failed, and not judged when the queue refused it', () => {
    expect(scenarioVerdict({ ...halfRun, error: 'the world did not start' })).toBe('error');
    expect(scenarioVerdict({ ...halfRun, notJudged: 'a lease below 1 s' })).toBe('not_judged');
  });

  it('keeps a drill from passing, as a run never started does', () => {
    expect(
      allJudgedPassed(
        summarize([
          { verdict: 'pass', invariants: [] },
          { verdict: 'interrupted', invariants: [] },
        ]),
      ),
    ).toBe(false);
    expect(allJudgedPassed(summarize([{ verdict: 'pass', invariants: [] }], 1))).toBe(false);
    expect(allJudgedPassed(summarize([{ verdict: 'pass', invariants: [] }], 0))).toBe(true);
  });
});

describe('a scenario the machine starved', () => {
  const singleHolder: Verdict = { id: 'single-holder', statement: 's', status: 'broken', judged: 1, evidence: ['w1 and w2 held job 1 at once'] };
  const starved = {
    error: null,
    notJudged: null,
    notSupported: null,
    unjudgedChecks: [],
    interrupted: null,
    inconclusive: [...INCONCLUSIVE_LINES],
    invariants: [broken],
    expectations: ['job 1 (ab12cd34ef56ab78): expected done, ended running'],
    jobs: [wrongJob],
    unfired: [],
    nothingJudged: [],
  };

  it('is inconclusive when only liveness broke and starvation explains it, never a pass nor a failure', () => {
    expect(scenarioVerdict(starved)).toBe('inconclusive');
    // The same contents with nothing explained by starvation: a failure.
    expect(scenarioVerdict({ ...starved, inconclusive: null })).toBe('fail');
    expect(scenarioVerdict({ ...starved, inconclusive: [] })).toBe('fail');
  });

  it('fails over a broken safety invariant, whatever starvation explains: a correct queue keeps it under any timing', () => {
    expect(scenarioVerdict({ ...starved, invariants: [broken, singleHolder] })).toBe('fail');
    expect(scenarioVerdict({ ...starved, invariants: [singleHolder], expectations: [], jobs: [] })).toBe('fail');
  });

  it("is inconclusive over single-holder only where the judge's lines explain it (a stale call a world without fencing applied)", () => {
    const line = "single-holder: w1's call #1 (write_file) reached a world that takes no fencing token after w1 lost its lease for starvation";
    expect(scenarioVerdict({ ...starved, invariants: [singleHolder], inconclusive: [line] })).toBe('inconclusive');
    // Another safety invariant beside it is still a failure.
    expect(scenarioVerdict({ ...starved, invariants: [singleHolder, { ...singleHolder, id: 'no-duplicate-effect' }], inconclusive: [line] })).toBe(
      'fail',
    );
  });

  it('is an error, not judged or interrupted before it is inconclusive', () => {
    expect(scenarioVerdict({ ...starved, error: 'the world did not start' })).toBe('error');
    expect(scenarioVerdict({ ...starved, notJudged: 'a lease below 1 s' })).toBe('not_judged');
    expect(scenarioVerdict({ ...starved, interrupted: 'interrupted by SIGINT' })).toBe('interrupted');
  });

  it('exits 4 when nothing but passes, inconclusive runs and runs not judged, and 1, 3 or 0 as before otherwise', () => {
    const exit = (verdicts: ScenarioVerdict[], options = { interrupted: false, regressed: false }) =>
      drillExitCode(summarize(verdicts.map((verdict) => ({ verdict, invariants: [] }))), options);
    expect(exit(['pass', 'inconclusive'])).toBe(4);
    expect(exit(['inconclusive'])).toBe(4);
    expect(exit(['pass', 'inconclusive', 'not_judged'])).toBe(4);
    expect(exit(['pass', 'inconclusive', 'fail'])).toBe(1);
    expect(exit(['pass', 'inconclusive', 'vacuous'])).toBe(1);
    expect(exit(['pass', 'inconclusive'], { interrupted: false, regressed: true })).toBe(1);
    expect(exit(['pass', 'inconclusive', 'error'])).toBe(3);
    expect(exit(['pass', 'inconclusive'], { interrupted: true, regressed: false })).toBe(3);
    expect(exit(['pass', 'pass'])).toBe(0);
  });

  it('keeps a drill from passing', () => {
    expect(
      allJudgedPassed(
        summarize([
          { verdict: 'pass', invariants: [] },
          { verdict: 'inconclusive', invariants: [] },
        ]),
      ),
    ).toBe(false);
  });
});

describe('a scenario the queue refused', () => {
  it('is not judged, whatever else it holds, unless the harness failed', () => {
    const refused = {
      error: null,
      notJudged: 'a lease of 300 ms is below 1 s',
      interrupted: null,
      inconclusive: null,
      invariants: [],
      expectations: [],
      jobs: [],
      unfired: [],
      nothingJudged: [],
      notSupported: null,
      unjudgedChecks: [],
    };
    expect(scenarioVerdict(refused)).toBe('not_judged');
    expect(scenarioVerdict({ ...refused, error: 'the world did not start' })).toBe('error');
  });

  it('does not make a drill fail, but a drill the queue refused whole has not passed', () => {
    expect(allJudgedPassed({ scenarios: 3, passed: 2, notJudged: 1, notSupported: 0, notStarted: 0 })).toBe(true);
    expect(allJudgedPassed({ scenarios: 3, passed: 0, notJudged: 3, notSupported: 0, notStarted: 0 })).toBe(false);
    expect(allJudgedPassed({ scenarios: 3, passed: 1, notJudged: 1, notSupported: 0, notStarted: 0 })).toBe(false);
  });
});

describe('summarize', () => {
  it('counts each verdict, and no invariant when there are none', () => {
    const verdicts: ScenarioVerdict[] = [
      'pass',
      'fail',
      'fail',
      'vacuous',
      'inconclusive',
      'not_judged',
      'not_supported',
      'interrupted',
      'error',
      'pass',
      'pass',
    ];
    expect(summarize(verdicts.map((verdict) => ({ verdict, invariants: [] })))).toEqual({
      scenarios: 11,
      passed: 3,
      failed: 2,
      vacuous: 1,
      inconclusive: 1,
      notJudged: 1,
      notSupported: 1,
      interrupted: 1,
      errors: 1,
      notStarted: 0,
      invariants: { held: 0, broken: 0, notJudged: 0 },
    });
    expect(summarize([], 4).notStarted).toBe(4);
  });

  it('counts invariant verdicts across scenarios, not judged apart from held', () => {
    const summary = summarize([
      { verdict: 'pass', invariants: [held, notJudged, notJudged] },
      { verdict: 'fail', invariants: [held, broken, notJudged] },
      { verdict: 'error', invariants: [] },
    ]);
    expect(summary).toEqual({
      scenarios: 3,
      passed: 1,
      failed: 1,
      vacuous: 0,
      inconclusive: 0,
      notJudged: 0,
      notSupported: 0,
      interrupted: 0,
      errors: 1,
      notStarted: 0,
      invariants: { held: 2, broken: 1, notJudged: 3 },
    });
  });

  it.each([
    ['the four-verdict fixture', drillReport, ['pass', 'fail', 'vacuous', 'error']],
    ['the stub queue with invariants not judged', notJudgedReport, ['pass']],
    ['the interrupted drill', interruptedReport, ['pass', 'interrupted']],
    ['the drill on a starved machine', inconclusiveReport, ['pass', 'inconclusive']],
  ] as const)('agrees with %s, whose verdicts follow from its contents', (_name, report, expected) => {
    const { scenarios, summary, interruption } = report();
    expect(scenarios.map((s) => scenarioVerdict(s))).toEqual(expected);
    expect(summarize(scenarios, interruption?.notStarted.length ?? 0)).toEqual(summary);
  });

  it('the stub queue leaves some invariants not judged and judges the rest', () => {
    const { summary } = notJudgedReport();
    expect(NEEDS_HISTORY).toEqual(expect.arrayContaining(['attempts-bounded', 'history-complete', 'transitions-allowed']));
    expect(NEEDS_HISTORY).not.toContain('no-lost-job');
    expect(summary.invariants).toEqual({ held: INVARIANT_IDS.length - NEEDS_HISTORY.length, broken: 0, notJudged: NEEDS_HISTORY.length });
  });

  it("the stub's not-judged note is the judge's own words for it", () => {
    // notJudgedReason reads only what the queue could give.
    const evidence = { available: STUB_AVAILABLE } as Evidence;
    for (const invariant of INVARIANTS) {
      expect(notJudgedReason(invariant, evidence)).toBe(NEEDS_HISTORY.includes(invariant.id) ? NO_HISTORY_NOTE : null);
    }
  });
});

describe('a scenario that could not judge what it exists to check', () => {
  const contents = {
    error: null,
    notJudged: null,
    notSupported: null,
    interrupted: null,
    inconclusive: null,
    invariants: [],
    expectations: [],
    jobs: [],
    unfired: [],
    nothingJudged: [],
    unjudgedChecks: ['single-holder, which this scenario exists to check: the queue records no refused write'],
  };

  it('is not judged, never a pass; a failure still fails; a missing feature is not supported', () => {
    expect(scenarioVerdict(contents)).toBe('not_judged');
    expect(scenarioVerdict({ ...contents, unjudgedChecks: [] })).toBe('pass');
    expect(scenarioVerdict({ ...contents, expectations: ['job 1 ended review'] })).toBe('fail');
    expect(scenarioVerdict({ ...contents, notSupported: 'no compensating state' })).toBe('not_supported');
  });
});
