import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Evidence, type EvidenceAvailability, INVARIANT_IDS, type InvariantId } from '../../../src/judge/evidence.js';
import {
  checkInvariants,
  expectationMismatch,
  expectationVerdicts,
  INVARIANTS,
  InvariantFileError,
  loadInvariant,
  notJudgedReason,
  UnknownInvariantError,
} from '../../../src/judge/invariants/index.js';
import { EVIDENCE_KINDS, EVIDENCE_MEANING, type EvidenceKind } from '../../../src/kernel/vocabulary.js';
import { ALL_AVAILABLE, cleanEvidence, EvidenceBuilder, jobIn, planOf, richBuilder, SECRET, STEPS } from './evidence-builder.js';

describe('INVARIANTS', () => {
  it('has one invariant per id, in INVARIANT_IDS order, each in a file named by its id', () => {
    expect(INVARIANTS.map((invariant) => invariant.id)).toEqual([...INVARIANT_IDS]);
    for (const id of INVARIANT_IDS) {
      expect(readFileSync(new URL(`../../../src/judge/invariants/${id}.ts`, import.meta.url), 'utf8')).toContain(`id: '${id}'`);
    }
  });

  it('declares the evidence each needs only from EVIDENCE_KINDS, each kind once', () => {
    const kinds: readonly string[] = EVIDENCE_KINDS;
    for (const invariant of INVARIANTS) {
      expect(Array.isArray(invariant.needs), invariant.id).toBe(true);
      for (const kind of invariant.needs) expect(kinds, `${invariant.id} needs ${kind}`).toContain(kind);
      expect(new Set(invariant.needs).size, invariant.id).toBe(invariant.needs.length);
    }
  });

  // The design's list of invariants (docs/design.md, "## The 13 invariants"): one entry per invariant, in
  // INVARIANT_IDS order, whose first sentence is the statement the report prints (markup aside).
  it("states each invariant as the design's list does, on one line", () => {
    const design = readFileSync(new URL('../../../docs/design.md', import.meta.url), 'utf8');
    const heading = /^## The (\d+) invariants$/m.exec(design);
    expect(heading, 'docs/design.md has a "## The N invariants" section').not.toBeNull();
    expect(Number(heading![1])).toBe(INVARIANT_IDS.length);
    const start = heading!.index + heading![0].length;
    const end = design.indexOf('\n## ', start);
    const section = design.slice(start, end === -1 ? undefined : end);
    const entries = section
      .split(/\n(?=\d+\. \*\*)/)
      .slice(1)
      .map((item) => /^\d+\. \*\*`([a-z-]+)`\*\*: ([\s\S]*)$/.exec(item.trim()))
      .map((match) => ({ id: match?.[1], text: match?.[2]?.replace(/\s*\n\s*/g, ' ').replaceAll('`', '') ?? '' }));
    expect(entries.map((entry) => entry.id)).toEqual([...INVARIANT_IDS]);
    for (const invariant of INVARIANTS) {
      expect(invariant.statement).not.toMatch(/\n/);
      const entry = entries.find((e) => e.id === invariant.id)!;
      expect(`${entry.text} `.startsWith(`${invariant.statement}. `), `${invariant.id}: "${entry.text}"`).toBe(true);
    }
  });
});

describe('checkInvariants', () => {
  it('judges every invariant, in order, and all hold on clean and rich evidence', () => {
    for (const evidence of [cleanEvidence(), richBuilder().b.build()]) {
      const verdicts = checkInvariants(evidence);
      expect(verdicts.map((v) => v.id)).toEqual([...INVARIANT_IDS]);
      expect(verdicts.filter((v) => v.status !== 'held')).toEqual([]);
    }
  });

  it('says how many items each invariant judged, in its own unit: 0 where it had nothing', () => {
    const judgedOn = (evidence: Evidence) => Object.fromEntries(checkInvariants(evidence).map((v) => [v.id, v.judged]));
    // Three done jobs (two workers, five side-effect steps, nine state changes, a secret in job 3's payload), nothing raced, reviewed or compensated.
    expect(judgedOn(cleanEvidence())).toEqual({
      'no-lost-job': 3,
      'no-duplicate-effect': 5,
      'dedupe-on-enqueue': 0,
      'attempts-bounded': 3,
      'retry-backoff': 0,
      'lease-released': 3,
      'single-holder': 3,
      'lease-respected': 3,
      'review-routing': 0,
      'review-sticky': 0,
      'done-is-verified': 3,
      'transitions-allowed': 9,
      'history-complete': 3,
      'secrets-redacted': 1,
      'saga-compensation': 0,
    });
    // Seven jobs: ten claims, twelve side-effect steps, six with something to route (a doubt, a 403 or 401, retries used up),
    // four reviews, four done, one raced key, two sagas to their end.
    expect(judgedOn(richBuilder().b.build())).toEqual({
      'no-lost-job': 7,
      'no-duplicate-effect': 12,
      'dedupe-on-enqueue': 1,
      'attempts-bounded': 7,
      // Its retries record no delay: a queue that keeps none gives retry-backoff nothing to judge.
      'retry-backoff': 0,
      'lease-released': 7,
      'single-holder': 10,
      // Each of the ten leases ended: by its holder, or (one) taken back by the coordinator after its end.
      'lease-respected': 10,
      'review-routing': 6,
      'review-sticky': 4,
      'done-is-verified': 4,
      'transitions-allowed': 31,
      'history-complete': 7,
      'secrets-redacted': 1,
      'saga-compensation': 2,
    });
    const none = new EvidenceBuilder().build();
    expect(checkInvariants(none).every((v) => v.status === 'held' && v.judged === 0)).toBe(true);
  });

  it('judges only the invariants named, in INVARIANT_IDS order', () => {
    const verdicts = checkInvariants(cleanEvidence(), ['secrets-redacted', 'no-lost-job', 'secrets-redacted']);
    expect(verdicts.map((v) => v.id)).toEqual(['no-lost-job', 'secrets-redacted']);
  });

  it('refuses an id that is not an invariant, naming the known ones', () => {
    expect(() => checkInvariants(cleanEvidence(), ['no-lost-job', 'no-lost-jobs' as InvariantId])).toThrow(UnknownInvariantError);
    expect(() => checkInvariants(cleanEvidence(), ['no-lost-jobs' as InvariantId])).toThrow(
      /unknown invariant id\(s\) "no-lost-jobs"; known: no-lost-job, /,
    );
  });

  it('never throws on odd evidence: a checker that cannot judge fails, saying so', () => {
    const empty = {} as Evidence;
    const verdicts = checkInvariants(empty);
    expect(verdicts).toHaveLength(INVARIANT_IDS.length);
    // Evidence that is not there is never judged as an empty list: each invariant that needs no more than every drill has fails, naming it.
    const judgedOnNothing = verdicts.filter((v) => v.status !== 'not_judged');
    // (An invariant with a part that needs nothing of the queue judges that part, and fails closed the same way.)
    expect(judgedOnNothing.map((v) => v.id)).toEqual(INVARIANTS.filter((i) => i.needs.length === 0 || i.checkWithout).map((i) => i.id));
    for (const verdict of judgedOnNothing) {
      expect(verdict.status).toBe('broken');
      expect(verdict.evidence).toContainEqual(
        expect.stringMatching(/^could not judge this evidence \(the checker failed: MissingEvidenceError: evidence\.\w+ is undefined, not a list: /),
      );
    }
    expect(verdicts.find((v) => v.id === 'no-lost-job')?.evidence).toEqual([
      'could not judge this evidence (the checker failed: MissingEvidenceError: evidence.jobs is undefined, not a list: ' +
        'nothing can be judged on evidence that is not there)',
    ]);

    const garbled = cleanEvidence();
    (garbled.events as unknown[]).push(null);
    (garbled.txLog as unknown[]).push(42);
    const judged = checkInvariants(garbled);
    expect(judged).toHaveLength(INVARIANT_IDS.length);
    const crashed = judged.filter((v) => v.evidence.some((line) => line.startsWith('could not judge this evidence (the checker failed: TypeError')));
    expect(crashed.length).toBeGreaterThan(0);
    expect(crashed.every((v) => v.status === 'broken')).toBe(true);
  });
});

describe('checkInvariants on a queue that cannot give every kind of evidence', () => {
  const NO_HISTORY = 'this queue keeps no per-attempt history';
  const NO_EPOCH = 'no epoch';
  const available: EvidenceAvailability = { ...ALL_AVAILABLE, history: NO_HISTORY, epoch: NO_EPOCH };
  const missing = new Map<EvidenceKind, string>([
    ['history', NO_HISTORY],
    ['epoch', NO_EPOCH],
  ]);
  const lacking = (id: InvariantId): EvidenceKind[] => INVARIANTS.find((i) => i.id === id)!.needs.filter((kind) => missing.has(kind));

  /** The rich evidence on that queue, with a secret leaked into a log (secrets-redacted needs nothing) and an attempt miscounted (attempts-bounded needs the history). */
  function stubbed(): Evidence {
    const evidence = richBuilder().b.build();
    evidence.available = available;
    evidence.logs.push({ name: 'w2.log', text: `{"event":"oops","token":"${SECRET}"}\n` });
    jobIn(evidence, 1).attempts = 7;
    return evidence;
  }

  it('does not judge exactly the invariants that need what the queue lacks, and says why, kind by kind', () => {
    const verdicts = checkInvariants(stubbed());
    expect(verdicts.map((v) => v.id)).toEqual([...INVARIANT_IDS]);
    const notJudged = verdicts.filter((v) => v.status === 'not_judged');
    expect(notJudged.map((v) => v.id)).toEqual(INVARIANT_IDS.filter((id) => lacking(id).length > 0));
    // As the invariants declare them today: everything that reads the history, and single-holder for the epoch too.
    expect(notJudged.map((v) => v.id)).toEqual([
      'attempts-bounded',
      'retry-backoff',
      'single-holder',
      'lease-respected',
      'review-routing',
      'review-sticky',
      'done-is-verified',
      'transitions-allowed',
      'history-complete',
      'saga-compensation',
    ]);
    for (const verdict of notJudged) {
      expect(verdict.evidence, verdict.id).toEqual([]);
      expect(verdict.note, verdict.id).toMatch(/^needs history \(/);
      expect(verdict.note, verdict.id).toBe(
        lacking(verdict.id)
          .map((kind) => `needs ${kind} (${EVIDENCE_MEANING[kind]}): ${missing.get(kind)}`)
          .join('; '),
      );
    }
    expect(notJudged.find((v) => v.id === 'single-holder')!.note).toBe(
      `needs history (${EVIDENCE_MEANING.history}): ${NO_HISTORY}; needs epoch (${EVIDENCE_MEANING.epoch}): ${NO_EPOCH}`,
    );
  });

  it('still judges the others, a broken one included: not judged is no blanket pass', () => {
    const verdicts = checkInvariants(stubbed());
    const judged = verdicts.filter((v) => v.status !== 'not_judged');
    expect(judged.map((v) => v.id)).toEqual(['no-lost-job', 'no-duplicate-effect', 'dedupe-on-enqueue', 'lease-released', 'secrets-redacted']);
    expect(judged.filter((v) => v.status === 'broken').map((v) => v.id)).toEqual(['secrets-redacted']);
    expect(verdicts.find((v) => v.id === 'secrets-redacted')!.evidence).toEqual([
      expect.stringMatching(/^secret sk-…\(40 chars\) found in log w2\.log line 1: /),
    ]);
    // The miscounted attempt breaks attempts-bounded once the queue can give the history.
    const full = stubbed();
    full.available = ALL_AVAILABLE;
    expect(checkInvariants(full, ['attempts-bounded', 'secrets-redacted']).map((v) => [v.id, v.status])).toEqual([
      ['attempts-bounded', 'broken'],
      ['secrets-redacted', 'broken'],
    ]);
  });

  it('does not judge what the evidence does not say the queue gives', () => {
    const evidence = cleanEvidence();
    delete (evidence as Partial<Evidence>).available;
    const singleHolder = INVARIANTS.find((i) => i.id === 'single-holder')!;
    expect(notJudgedReason(singleHolder, evidence)).toBe(
      ['history', 'epoch', 'refusals']
        .map((kind) => `needs ${kind} (${EVIDENCE_MEANING[kind as EvidenceKind]}): the queue does not say it gives it`)
        .join('; '),
    );
    expect(
      checkInvariants(evidence)
        .filter((v) => v.status !== 'not_judged')
        .map((v) => v.id),
    ).toEqual(INVARIANTS.filter((i) => i.needs.length === 0).map((i) => i.id));
    expect(notJudgedReason(singleHolder, cleanEvidence())).toBeNull();
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
    const key = (id: number) => jobIn(evidence, id).key.slice(0, 8);
    evidence.accepted.find((a) => a.key === jobs.saga.key)!.expect = { status: 'compensation_failed' };
    evidence.accepted.find((a) => a.key === jobs.sagaFailed.key)!.expect = { status: 'compensated' };
    evidence.accepted.find((a) => a.key === jobs.exhausted.key)!.expect = { status: 'done' };
    evidence.accepted.find((a) => a.key === jobs.died.key)!.expect = { status: 'review' };
    evidence.jobs = evidence.jobs.filter((job) => job.id !== jobs.raced.id);
    expect(expectationVerdicts(evidence)).toEqual([
      `job 1 (key ${key(1)}…): expected review, got done`,
      expect.stringMatching(
        new RegExp(`^job 4 \\(key ${key(4)}…\\): expected compensation_failed, got review as compensated \\(reason "compensated: step email`),
      ),
      expect.stringMatching(
        new RegExp(
          `^job 5 \\(key ${key(5)}…\\): expected compensated, got review as compensation_failed \\(reason "COMPENSATION_FAILED: undoing step publish`,
        ),
      ),
      expect.stringMatching(/^job 6 .*: expected done, got review \(reason "step email \(send_email\) failed for good/),
      expect.stringMatching(/^key [0-9a-f]{8}…: expected done, but no job with this key is in the store$/),
    ]);
  });

  it.each([
    ['compensated', 'review', 'compensated: undone in reverse order: write', /expected compensated, got review \(reason "compensated: undone/],
    [
      'compensated',
      'compensation_failed',
      'compensated: undone in reverse order: write',
      /expected compensated, got review as compensation_failed \(reason "compensated: undone/,
    ],
    [
      'compensation_failed',
      'review',
      'COMPENSATION_FAILED: undoing step write failed',
      /expected compensation_failed, got review \(reason "COMPENSATION_FAILED: undoing/,
    ],
    [
      'compensation_failed',
      'compensated',
      'COMPENSATION_FAILED: undoing step write failed',
      /expected compensation_failed, got review as compensated \(reason/,
    ],
    ['compensated', 'compensated', 'all undone', null],
    ['compensation_failed', 'compensation_failed', 'a person must look', null],
  ] as const)('judges an expected %s from the outcome (%s), never from the reason %j', (expected, outcome, reason, line) => {
    const { b } = richBuilder();
    const job = jobIn(b.evidence, 4);
    Object.assign(job, { outcome, reviewReason: reason });
    const mismatch = expectationMismatch(job, job.key, { status: expected });
    if (line === null) expect(mismatch).toBeNull();
    else expect(mismatch).toMatch(new RegExp(`^job 4 \\(key [0-9a-f]{8}…\\): ${line.source}`));
  });

  it('matches review, done and any by status, whatever the outcome says', () => {
    const { b, jobs } = richBuilder();
    const saga = jobIn(b.evidence, jobs.saga.id);
    expect(expectationMismatch(saga, saga.key, { status: 'review' })).toBeNull();
    expect(expectationMismatch(saga, saga.key, { status: 'any' })).toBeNull();
    expect(expectationMismatch(saga, saga.key, { status: 'done' })).toMatch(
      /expected done, got review as compensated \(reason "compensated: step email/,
    );
  });

  it('checks the reason against its regular expression, and says when the expression is bad', () => {
    const b = new EvidenceBuilder();
    b.job(planOf(STEPS.email), { expect: { status: 'review', reason: '^policy' } })
      .claim('w1')
      .review('approval required before step email');
    b.job(planOf(STEPS.email), { expect: { status: 'review', reason: 'approval (' } })
      .claim('w1')
      .review('approval required before step email');
    b.job(planOf(STEPS.email), { expect: { status: 'review', reason: 'approval required' } })
      .claim('w1')
      .review('approval required before step email');
    expect(expectationVerdicts(b.build())).toEqual([
      expect.stringMatching(
        /^job 1 .*: ended review as expected, but its review reason "approval required before step email" does not match \/\^policy\/$/,
      ),
      expect.stringMatching(/^job 2 .*: expected reason \/approval \(\/ is not a valid regular expression$/),
    ]);
  });
});

describe('loadInvariant', () => {
  it('finds an invariant in the file named by its id, and refuses a file that exports none with that id, or two', async () => {
    expect((await loadInvariant('no-lost-job')).id).toBe('no-lost-job');
    const other = INVARIANTS.find((invariant) => invariant.id === 'single-holder')!;
    const mine = INVARIANTS.find((invariant) => invariant.id === 'no-lost-job')!;
    await expect(loadInvariant('no-lost-job', async () => ({ singleHolder: other }))).rejects.toThrow(InvariantFileError);
    await expect(loadInvariant('no-lost-job', async () => ({ a: mine, b: { ...mine } }))).rejects.toThrow(/exports 2 invariants/);
    expect((await loadInvariant('no-lost-job', async () => ({ helper: 3, noLostJob: mine }))).id).toBe('no-lost-job');
  });
});
