import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INVARIANT_IDS, type Evidence, type InvariantId } from '../../../src/scenarios/evidence.js';
import { checkInvariants, expectationVerdicts, INVARIANTS, UnknownInvariantError } from '../../../src/scenarios/invariants/index.js';
import { cleanEvidence, EvidenceBuilder, jobIn, planOf, richBuilder, STEPS } from './evidence-builder.js';

describe('INVARIANTS', () => {
  it('has one invariant per id, in INVARIANT_IDS order, each in a file named by its id', () => {
    expect(INVARIANTS.map((invariant) => invariant.id)).toEqual([...INVARIANT_IDS]);
    for (const id of INVARIANT_IDS) {
      expect(readFileSync(new URL(`../../../src/scenarios/invariants/${id}.ts`, import.meta.url), 'utf8')).toContain(`id: '${id}'`);
    }
  });

  // The design lives beside the repository (../shared), as on a developer's machine and in CI.
  const DESIGN = new URL('../../../../shared/DESIGN.md', import.meta.url);
  it.skipIf(!existsSync(DESIGN))("states each invariant as the design's table does, on one line", () => {
    const design = readFileSync(DESIGN, 'utf8');
    for (const invariant of INVARIANTS) {
      expect(invariant.statement).not.toMatch(/\n/);
      // A prefix of the table's cell: no-lost-job leaves off "(or is still legitimately waiting ...)", which it reports as a breach.
      expect(design).toContain(`| ${invariant.id} | ${invariant.statement}`);
    }
  });
});

describe('checkInvariants', () => {
  it('judges every invariant, in order, and all hold on clean and rich evidence', () => {
    for (const evidence of [cleanEvidence(), richBuilder().b.build()]) {
      const verdicts = checkInvariants(evidence);
      expect(verdicts.map((v) => v.id)).toEqual([...INVARIANT_IDS]);
      expect(verdicts.filter((v) => !v.holds)).toEqual([]);
    }
  });

  it('judges only the invariants named, in INVARIANT_IDS order', () => {
    const verdicts = checkInvariants(cleanEvidence(), ['secrets-redacted', 'no-lost-job', 'secrets-redacted']);
    expect(verdicts.map((v) => v.id)).toEqual(['no-lost-job', 'secrets-redacted']);
  });

  it('refuses an id that is not an invariant, naming the known ones', () => {
    expect(() => checkInvariants(cleanEvidence(), ['no-lost-job', 'no-lost-jobs' as InvariantId])).toThrow(UnknownInvariantError);
    expect(() => checkInvariants(cleanEvidence(), ['no-lost-jobs' as InvariantId])).toThrow(/unknown invariant id\(s\) "no-lost-jobs"; known: no-lost-job, /);
  });

  it('never throws on odd evidence: a checker that cannot judge fails, saying so', () => {
    const empty = {} as Evidence;
    const verdicts = checkInvariants(empty);
    expect(verdicts).toHaveLength(INVARIANT_IDS.length);
    expect(verdicts.find((v) => v.id === 'no-lost-job')).toMatchObject({ holds: false, evidence: ['the drill never reached rest before its deadline'] });

    const garbled = cleanEvidence();
    (garbled.events as unknown[]).push(null);
    (garbled.txLog as unknown[]).push(42);
    const judged = checkInvariants(garbled);
    expect(judged).toHaveLength(INVARIANT_IDS.length);
    const crashed = judged.filter((v) => v.evidence.some((line) => line.startsWith('could not judge this evidence (the checker failed: TypeError')));
    expect(crashed.length).toBeGreaterThan(0);
    expect(crashed.every((v) => !v.holds)).toBe(true);
  });
});

describe('expectationVerdicts', () => {
  it('has nothing to say when every accepted job ended as expected', () => {
    expect(expectationVerdicts(cleanEvidence())).toEqual([]);
    expect(expectationVerdicts(richBuilder().b.build())).toEqual([]);
  });

  it('names each job that ended otherwise, and a key with no job', () => {
    const { b, jobs } = richBuilder();
    const evidence = b.build();
    const key = (id: number) => jobIn(evidence, id).idempotency_key.slice(0, 8);
    evidence.accepted.find((a) => a.key === jobs.saga.key)!.expect = { status: 'compensation_failed' };
    evidence.accepted.find((a) => a.key === jobs.sagaFailed.key)!.expect = { status: 'compensated' };
    evidence.accepted.find((a) => a.key === jobs.exhausted.key)!.expect = { status: 'done' };
    evidence.accepted.find((a) => a.key === jobs.died.key)!.expect = { status: 'review' };
    evidence.jobs = evidence.jobs.filter((job) => job.id !== jobs.raced.id);
    expect(expectationVerdicts(evidence)).toEqual([
      `job 1 (key ${key(1)}…): expected review, got done`,
      expect.stringMatching(new RegExp(`^job 4 \\(key ${key(4)}…\\): expected compensation_failed, got review \\(reason "compensated: step email`)),
      expect.stringMatching(new RegExp(`^job 5 \\(key ${key(5)}…\\): expected compensated, got review \\(reason "COMPENSATION_FAILED: undoing step publish`)),
      expect.stringMatching(/^job 6 .*: expected done, got review \(reason "step email \(send_email\) failed for good/),
      expect.stringMatching(/^key [0-9a-f]{8}…: expected done, but no job with this key is in the store$/),
    ]);
  });

  it('checks the reason against its regular expression, and says when the expression is bad', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.email), { expect: { status: 'review', reason: '^policy' } }).claim('w1').review('approval required before step email');
    b.job(planOf(STEPS.email), { expect: { status: 'review', reason: 'approval (' } }).claim('w1').review('approval required before step email');
    b.job(planOf(STEPS.email), { expect: { status: 'review', reason: 'approval required' } }).claim('w1').review('approval required before step email');
    expect(expectationVerdicts(b.build())).toEqual([
      expect.stringMatching(/^job 1 .*: ended review as expected, but its review reason "approval required before step email" does not match \/\^policy\/$/),
      expect.stringMatching(/^job 2 .*: expected reason \/approval \(\/ is not a valid regular expression$/),
    ]);
  });
});
