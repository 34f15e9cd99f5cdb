import { describe, expect, it } from 'vitest';
import type { InvariantId, Verdict } from '../../src/judge/evidence.js';
import { MUST_JUDGE, nothingJudged } from '../../src/judge/must-judge.js';
import type { ResolvedJob, ResolvedScenario } from '../../src/scenarios/resolve.js';
import { BUILT_IN_DEFAULTS, type Settings } from '../../src/scenarios/schema.js';
import { digestOf, planOf, SECRET, STEPS } from './invariants/evidence-builder.js';

/*
 * The rules that decide, from a scenario's content, which invariants must
 * have had something to judge: each fires where the scenario should have
 * given its invariant something and the invariant judged nothing, and stays
 * quiet where the invariant judged something, or the scenario gives it nothing.
 */

function job(n: number, expect: ResolvedJob['expect'], plan = planOf(STEPS.write)): ResolvedJob {
  return { n, key: digestOf(`must ${n}`), plan, maxAttempts: 3, expect };
}

/** A world fault that answers 503 (the service is down) or 403 (a permanent refusal) to the first write_file call. */
function failing(status: 503 | 403): ResolvedScenario['worldFaults'][number] {
  return { spec: { match: { tool: 'write_file' }, action: { type: 'fail', status }, times: 1 }, describe: `fail ${status}` };
}

function scenario(
  options: { jobs?: ResolvedJob[]; producers?: number; secrets?: string[]; worldFaults?: ResolvedScenario['worldFaults'] } = {},
): ResolvedScenario {
  return {
    name: 'rules',
    description: '',
    covers: null,
    settings: { ...structuredClone(BUILT_IN_DEFAULTS), producers: options.producers ?? 1 } as Settings,
    seed: 1,
    workers: [{ id: 'w1', clockSkewMs: 0 }],
    jobs: options.jobs ?? [job(1, { status: 'done' })],
    pointFaults: [],
    worldFaults: options.worldFaults ?? [],
    invariants: [],
    secrets: options.secrets ?? [],
  };
}

/** Every rule's invariant held on `judged` items (a note saying why when none). */
function verdicts(judged: number, status: Verdict['status'] = 'held'): Verdict[] {
  return MUST_JUDGE.map((rule) => ({
    id: rule.invariant,
    statement: 's',
    status,
    judged,
    evidence: [],
    ...(judged === 0 ? { note: 'there was nothing' } : {}),
  }));
}

/** A scenario that gives every rule's invariant something to judge. */
const EVERYTHING = scenario({
  jobs: [job(1, { status: 'done' }), job(2, { status: 'review', reason: 'permanent' }), job(3, { status: 'compensated' })],
  producers: 4,
  secrets: [SECRET],
  worldFaults: [failing(503)],
});

const idsOf = (lines: readonly string[]): string[] => lines.map((line) => line.slice(0, line.indexOf(' ')));

describe('nothingJudged', () => {
  it('is quiet when every invariant judged something', () => {
    expect(nothingJudged(EVERYTHING, verdicts(1))).toEqual([]);
  });

  it('names every invariant that held on nothing where the scenario should have given it something, with why and its note', () => {
    const lines = nothingJudged(EVERYTHING, verdicts(0));
    expect(idsOf(lines)).toEqual(MUST_JUDGE.map((rule) => rule.invariant));
    expect(lines).toContain(
      "dedupe-on-enqueue had nothing to judge, yet 4 producers enqueue the same keys: it should have judged a key on which two producers' " +
        'enqueue calls were in flight at once, with the one told it created the job (there was nothing)',
    );
    expect(lines).toContain(
      'saga-compensation had nothing to judge, yet 1 job(s) are expected to end compensated: it should have judged a saga judged to its end (there was nothing)',
    );
    expect(lines).toContain(
      'secrets-redacted had nothing to judge, yet the scenario plants 1 secret(s): it should have judged a planted secret whose job ran, ' +
        'searched for in every artefact (there was nothing)',
    );
  });

  it.each<{ invariant: InvariantId; gives: ResolvedScenario; givesNothing: ResolvedScenario }>([
    { invariant: 'no-lost-job', gives: scenario(), givesNothing: scenario({ jobs: [] }) },
    { invariant: 'transitions-allowed', gives: scenario(), givesNothing: scenario({ jobs: [] }) },
    { invariant: 'single-holder', gives: scenario(), givesNothing: scenario({ jobs: [] }) },
    { invariant: 'lease-respected', gives: scenario(), givesNothing: scenario({ jobs: [] }) },
    { invariant: 'dedupe-on-enqueue', gives: scenario({ producers: 2 }), givesNothing: scenario({ producers: 1 }) },
    { invariant: 'done-is-verified', gives: scenario(), givesNothing: scenario({ jobs: [job(1, { status: 'review' })] }) },
    { invariant: 'no-duplicate-effect', gives: scenario(), givesNothing: scenario({ jobs: [job(1, { status: 'done' }, planOf(STEPS.read))] }) },
    { invariant: 'review-sticky', gives: scenario({ jobs: [job(1, { status: 'compensation_failed' })] }), givesNothing: scenario() },
    {
      invariant: 'saga-compensation',
      gives: scenario({ jobs: [job(1, { status: 'compensated' })] }),
      givesNothing: scenario({ jobs: [job(1, { status: 'review' })] }),
    },
    { invariant: 'secrets-redacted', gives: scenario({ secrets: [SECRET] }), givesNothing: scenario() },
    { invariant: 'retry-backoff', gives: scenario({ worldFaults: [failing(503)] }), givesNothing: scenario({ worldFaults: [failing(403)] }) },
  ])(
    '$invariant: fires when the scenario gives it something and it judged nothing, not when the scenario gives it nothing',
    ({ invariant, gives, givesNothing }) => {
      expect(idsOf(nothingJudged(gives, verdicts(0)))).toContain(invariant);
      expect(idsOf(nothingJudged(givesNothing, verdicts(0)))).not.toContain(invariant);
      expect(idsOf(nothingJudged(gives, verdicts(1)))).not.toContain(invariant);
    },
  );

  it('a job expected "any" (an explored schedule) asks for no done job, review or saga', () => {
    const explored = scenario({ jobs: [job(1, { status: 'any' })] });
    const ids = idsOf(nothingJudged(explored, verdicts(0)));
    expect(ids).not.toContain('done-is-verified');
    expect(ids).not.toContain('review-sticky');
    expect(ids).not.toContain('saga-compensation');
    expect(ids).toContain('no-lost-job');
  });

  it('holds no invariant to a rule that was not judged, broke, or was not named by the scenario', () => {
    expect(nothingJudged(EVERYTHING, verdicts(0, 'not_judged'))).toEqual([]);
    expect(nothingJudged(EVERYTHING, verdicts(0, 'broken'))).toEqual([]);
    expect(nothingJudged(EVERYTHING, [])).toEqual([]);
  });

  it('has one rule per invariant at most', () => {
    const ids = MUST_JUDGE.map((rule) => rule.invariant);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
