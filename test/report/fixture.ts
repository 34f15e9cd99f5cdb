import { starvedEvents } from '../../src/drill/starvation-spans.js';
import { type EvidenceAvailability, INVARIANT_IDS, type InvariantId, type Verdict } from '../../src/judge/evidence.js';
import { INVARIANTS } from '../../src/judge/invariants/index.js';
import { EVIDENCE_MEANING } from '../../src/kernel/vocabulary.js';
import { type DrillReport, REPORT_VERSION, type ScenarioReport, type StarvedSpan } from '../../src/report/schema.js';

/*
 * A realistic report of one drill with four scenarios, one of each verdict:
 * crash_after_write passed; timeout_blind_retry failed (a blind retry after an
 * unknown outcome charged twice, and the job ended done instead of in review);
 * crash_after_verify is vacuous (its fault never fired); world_unreachable is
 * a harness error. The failing scenario carries hostile strings (pipes,
 * backticks, markup, ANSI colours, a NUL, a lone surrogate) that every view
 * must survive.
 *
 * Beside it, `interruptedReport()`: a drill stopped by SIGINT, one scenario
 * finished, one stopped before rest (its jobs still running), two never started.
 * And `notJudgedReport()`: one passing scenario on a stub queue that
 * keeps no per-attempt history, so every invariant needing the history is
 * "not judged" (with the queue's reason), which must neither fail the
 * scenario nor be counted as held. And `inconclusiveReport()`: a drill on a
 * starved machine, one scenario passed and one inconclusive (a liveness breach
 * and a job on another path, both explained by a starved span), exit code 4.
 * And `retriedReport()`: a drill that chose its time scale itself (×1.5, from
 * what it measured), one scenario of which was starved at ×1.5 and passed when
 * run again at ×3 (--retry-inconclusive), exit code 0.
 */

const STATEMENTS: Record<InvariantId, string> = {
  'no-lost-job': 'every accepted job ends done or in review',
  'no-duplicate-effect': 'no non-idempotent effect is applied twice for one key',
  'dedupe-on-enqueue': 'one job per idempotency key, however many producers race',
  'attempts-bounded': 'attempts never exceed max_attempts',
  'retry-backoff': "after a failed attempt a job waits as the queue's retry policy says",
  'lease-released': 'at rest no job is running',
  'single-holder': 'at no time do two workers hold a live lease on one job',
  'lease-respected': 'no lease is taken back before it truly ended',
  'review-routing': 'an unknown outcome of a non-idempotent effect goes to review, never to a blind retry',
  'review-sticky': 'nothing leaves review without a human action',
  'done-is-verified': 'done only with a verification digest',
  'transitions-allowed': 'every state change in the history is in the allowed set',
  'history-complete': "each job's life can be rebuilt from the history by its id",
  'secrets-redacted': 'no secret from a payload appears in the store, the logs or the report',
  'saga-compensation': 'after a failed step, completed steps are compensated in reverse order',
};

/** Every invariant holding (each on 3 items), except the ones given (broken, with their evidence); saga-compensation has nothing to judge. */
function verdicts(broken: Partial<Record<InvariantId, string[]>> = {}): Verdict[] {
  return INVARIANT_IDS.map((id) => {
    const evidence = broken[id];
    if (evidence !== undefined) return { id, statement: STATEMENTS[id], status: 'broken', judged: 3, evidence };
    if (id === 'saga-compensation')
      return { id, statement: STATEMENTS[id], status: 'held', judged: 0, evidence: [], note: 'no saga was compensated in this drill' };
    return { id, statement: STATEMENTS[id], status: 'held', judged: 3, evidence: [] };
  });
}

/** The reference queue gives every kind of evidence (a fresh object: tests mutate reports). */
const everything = (): EvidenceAvailability => ({
  history: true,
  refusals: true,
  epoch: true,
  holder: true,
  digest: true,
  review: true,
  'retry-policy': true,
  renewals: true,
});

/** What the stub queue of `notJudgedReport()` says it cannot give. */
export const NO_HISTORY = 'this queue keeps no per-attempt history';

/** The stub queue's evidence: everything but the history. */
export const STUB_AVAILABLE: EvidenceAvailability = Object.freeze({ ...everything(), history: NO_HISTORY });

/** The note of an invariant not judged for want of the history, as the judge writes it. */
export const NO_HISTORY_NOTE = `needs history (${EVIDENCE_MEANING.history}): ${NO_HISTORY}`;

/** The invariants that need evidence the stub queue lacks (each of them needs the history), in report order. */
export const NEEDS_HISTORY: readonly InvariantId[] = INVARIANTS.filter((invariant) =>
  invariant.needs.some((kind) => STUB_AVAILABLE[kind] !== true),
).map((invariant) => invariant.id);

/** Every invariant held, except those needing the history: not judged, saying why. */
function stubVerdicts(): Verdict[] {
  return INVARIANT_IDS.map(
    (id): Verdict =>
      NEEDS_HISTORY.includes(id)
        ? { id, statement: STATEMENTS[id], status: 'not_judged', judged: 0, evidence: [], note: NO_HISTORY_NOTE }
        : { id, statement: STATEMENTS[id], status: 'held', judged: 3, evidence: [] },
  );
}

const REPLAY = (name: string) => `queue-drill drill scenarios.yaml --only ${name} --seed 42 --queue reference`;
const artefacts = (name: string) => ({
  store: `drill-runs/2026-08-25T10-00-00Z/${name}/queue.sqlite`,
  ledger: `drill-runs/2026-08-25T10-00-00Z/${name}/world.sqlite`,
  logs: [`drill-runs/2026-08-25T10-00-00Z/${name}/w1.log`, `drill-runs/2026-08-25T10-00-00Z/${name}/coordinator.log`],
});

/** Hostile text the views must escape: a control character, markup, a CDATA end, a pipe and a backtick. */
export const HOSTILE_EVIDENCE =
  'ledger: charge key=ab12cd34:charge applied by w1#1 and w1#2 <both> & "twice" ]]> \u001b[31mred\u001b[0m nul:\u0000 lone:\ud800 | `tick`';

function passing(): ScenarioReport {
  const name = 'crash_after_write';
  return {
    name,
    description: 'SIGKILL the worker after its checkpoint is written; the job must be reclaimed and finish once',
    queue: 'reference',
    queueVersion: 'reference 0.1.0 (sqlite)',
    available: everything(),
    seed: 42,
    repeat: 1,
    verdict: 'pass',
    notJudged: null,
    notSupported: null,
    checks: [],
    unjudgedChecks: [],
    interrupted: null,
    inconclusive: null,
    starvation: { spans: [], totalMs: 0, worst: null },
    timeScale: 1,
    queueSettings: {},
    queueOptions: {},
    queueTiming: null,
    durationMs: 3412.5,
    runDir: `drill-runs/2026-08-25T10-00-00Z/${name}`,
    replay: REPLAY(name),
    faultPoints: ['after_write'],
    faults: [{ id: 'kill-after-write', point: 'after_write', action: 'crash', where: { worker: 'w1', attempt: 1 }, first: 1, hits: 1, fired: 1 }],
    worldFaults: [],
    unfired: [],
    nothingJudged: [],
    jobs: [
      {
        id: '1',
        key: 'ab12cd34ef56ab78',
        expected: { status: 'done' },
        actual: { status: 'done', reason: null },
        matches: true,
        attempts: 2,
        maxAttempts: 5,
        duplicatedEffects: [],
        located: true,
        approve: null,
        events: [
          {
            kind: 'transition',
            at: '2026-08-25T10:00:00.100Z',
            seq: 1,
            from: null,
            to: 'pending',
            attempt: 0,
            epoch: 0,
            worker: null,
            actor: 'producer',
            reason: 'enqueued',
          },
          {
            kind: 'transition',
            at: '2026-08-25T10:00:00.200Z',
            seq: 2,
            from: 'pending',
            to: 'running',
            attempt: 1,
            epoch: 1,
            worker: 'w1',
            actor: 'worker',
            reason: 'claimed',
          },
          {
            kind: 'checkpoint',
            at: '2026-08-25T10:00:00.250Z',
            id: 1,
            step: 'write',
            action: 'execute',
            status: 'started',
            attempt: 1,
            epoch: 1,
            worker: 'w1',
            ref: null,
            detail: null,
          },
          {
            kind: 'effect',
            at: '2026-08-25T10:00:00.260Z',
            seq: 1,
            step: 'write',
            tool: 'write_file',
            key: 'ab12cd34ef56ab78:write',
            epoch: 1,
            worker: 'w1',
            attempt: 1,
            ref: 'ref-1',
            compensation: false,
          },
          {
            kind: 'transition',
            at: '2026-08-25T10:00:00.900Z',
            seq: 3,
            from: 'running',
            to: 'retry',
            attempt: 1,
            epoch: 1,
            worker: 'coordinator',
            actor: 'coordinator',
            reason: 'lease of w1 expired',
          },
          {
            kind: 'transition',
            at: '2026-08-25T10:00:01.400Z',
            seq: 4,
            from: 'retry',
            to: 'running',
            attempt: 2,
            epoch: 2,
            worker: 'w1',
            actor: 'worker',
            reason: 'claimed',
          },
          {
            kind: 'transition',
            at: '2026-08-25T10:00:01.700Z',
            seq: 5,
            from: 'running',
            to: 'done',
            attempt: 2,
            epoch: 2,
            worker: 'w1',
            actor: 'worker',
            reason: 'verified',
          },
        ],
      },
    ],
    duplicatedEffects: [],
    recovery: [
      {
        process: 'w1#1',
        killedAt: '2026-08-25T10:00:00.300Z',
        point: 'after_write',
        jobId: '1',
        reclaimedAt: '2026-08-25T10:00:01.400Z',
        settledAt: '2026-08-25T10:00:01.700Z',
        killToReclaimMs: 1100,
        killToSettledMs: 1400,
      },
    ],
    invariants: verdicts(),
    expectations: [],
    timeline: [
      { at: '2026-08-25T10:00:00.000Z', kind: 'spawn', process: 'w1#1', pid: 4101, detail: 'worker w1' },
      {
        at: '2026-08-25T10:00:00.290Z',
        kind: 'fault-fired',
        process: 'w1#1',
        detail: 'kill-after-write: crash at after_write (job 1, attempt 1)',
        point: 'after_write',
        worker: 'w1',
        job: '1',
        attempt: 1,
      },
      { at: '2026-08-25T10:00:00.300Z', kind: 'kill', process: 'w1#1', pid: 4101, detail: 'SIGKILL' },
      { at: '2026-08-25T10:00:00.400Z', kind: 'restart', process: 'w1#2', pid: 4102, detail: 'worker w1' },
      { at: '2026-08-25T10:00:01.800Z', kind: 'at-rest', detail: 'nothing running, nothing due' },
    ],
    error: null,
    artefacts: artefacts(name),
  };
}

function failing(): ScenarioReport {
  const name = 'timeout_blind_retry';
  return {
    ...passing(),
    name,
    description: 'the charge call times out after applying | the worker must not retry it `blindly`',
    verdict: 'fail',
    notJudged: null,
    queueSettings: {},
    durationMs: 5120,
    runDir: `drill-runs/2026-08-25T10-00-00Z/${name}`,
    replay: REPLAY(name),
    artefacts: artefacts(name),
    faultPoints: ['on_timeout'],
    faults: [],
    worldFaults: [{ id: 1, match: 'tool=charge', action: 'delay 3000 ms, applied', times: 1, fired: 1 }],
    jobs: [
      {
        id: '1',
        key: 'ab12cd34ef56ab78',
        expected: { status: 'review', reason: 'unknown outcome' },
        actual: { status: 'done', reason: null },
        matches: false,
        attempts: 2,
        maxAttempts: 5,
        duplicatedEffects: [{ key: 'ab12cd34ef56ab78:charge', tool: 'charge', times: 2 }],
        located: true,
        approve: null,
        events: [
          {
            kind: 'transition',
            at: '2026-08-25T10:00:00.200Z',
            seq: 2,
            from: 'pending',
            to: 'running',
            attempt: 1,
            epoch: 1,
            worker: 'w1',
            actor: 'worker',
            reason: 'claimed',
          },
          {
            kind: 'effect',
            at: '2026-08-25T10:00:00.300Z',
            seq: 1,
            step: 'charge',
            tool: 'charge',
            key: 'ab12cd34ef56ab78:charge',
            epoch: 1,
            worker: 'w1',
            attempt: 1,
            ref: 'ref-1',
            compensation: false,
          },
          {
            kind: 'effect',
            at: '2026-08-25T10:00:03.700Z',
            seq: 2,
            step: 'charge',
            tool: 'charge',
            key: 'ab12cd34ef56ab78:charge',
            epoch: 2,
            worker: 'w1',
            attempt: 1,
            ref: 'ref-1',
            compensation: false,
          },
        ],
      },
    ],
    duplicatedEffects: [{ key: 'ab12cd34ef56ab78:charge', tool: 'charge', times: 2, appliedBy: ['w1#1', 'w1#1'] }],
    recovery: [],
    invariants: verdicts({
      'no-duplicate-effect': [HOSTILE_EVIDENCE, 'job 1 is done with charge applied 2 times'],
      'review-routing': ['job 1: unknown outcome of non-idempotent charge at attempt 1 went to retry, not review'],
    }),
    expectations: ['job 1 (ab12cd34ef56ab78): expected review matching /unknown outcome/, ended done'],
    timeline: [
      { at: '2026-08-25T10:00:00.000Z', kind: 'world-fault-armed', detail: 'fault 1: tool=charge delay 3000 ms, applied' },
      { at: '2026-08-25T10:00:00.010Z', kind: 'spawn', process: 'w1#1', pid: 4201, detail: 'worker w1' },
      { at: '2026-08-25T10:00:04.000Z', kind: 'at-rest', detail: 'nothing running, nothing due' },
    ],
  };
}

function vacuous(): ScenarioReport {
  const name = 'crash_after_verify';
  return {
    ...passing(),
    name,
    description: 'SIGKILL the worker after it verified the effect',
    verdict: 'vacuous',
    notJudged: null,
    queueSettings: {},
    durationMs: 2200,
    runDir: `drill-runs/2026-08-25T10-00-00Z/${name}`,
    replay: REPLAY(name),
    artefacts: artefacts(name),
    faultPoints: ['after_verify'],
    faults: [{ id: 'kill-after-verify', point: 'after_verify', action: 'crash', where: { worker: 'w9' }, hits: 0, fired: 0 }],
    unfired: ['crash at after_verify (rule kill-after-verify, worker=w9) never fired: 0 hits'],
    recovery: [],
    timeline: [
      { at: '2026-08-25T10:00:00.000Z', kind: 'spawn', process: 'w1#1', pid: 4301, detail: 'worker w1' },
      { at: '2026-08-25T10:00:02.100Z', kind: 'at-rest', detail: 'nothing running, nothing due' },
    ],
  };
}

function harnessError(): ScenarioReport {
  const name = 'world_unreachable';
  return {
    ...passing(),
    name,
    description: 'the world must come up before the drill starts',
    verdict: 'error',
    notJudged: null,
    queueSettings: {},
    durationMs: 5003,
    runDir: `drill-runs/2026-08-25T10-00-00Z/${name}`,
    replay: REPLAY(name),
    artefacts: artefacts(name),
    faultPoints: [],
    faults: [],
    unfired: [],
    jobs: [],
    recovery: [],
    invariants: [],
    timeline: [{ at: '2026-08-25T10:00:00.000Z', kind: 'watchdog', detail: 'world not ready after 5000 ms' }],
    error: 'QD_WORLD_NOT_READY: the world did not answer on 127.0.0.1 within 5000 ms\nits log ends: EADDRINUSE',
  };
}

/** A fresh report (safe to mutate): four scenarios, one of each verdict, exit code 1. */
export function drillReport(): DrillReport {
  return {
    version: REPORT_VERSION,
    tool: 'queue-drill',
    toolVersion: '0.1.0',
    command: 'queue-drill drill scenarios.yaml --seed 42 --queue reference',
    file: 'scenarios.yaml',
    queue: 'reference',
    seed: 42,
    timeScale: 1,
    startedAt: '2026-08-25T10:00:00.000Z',
    finishedAt: '2026-08-25T10:00:15.735Z',
    durationMs: 15735,
    exitCode: 1,
    // Held: every invariant (pass) + all but two (fail) + every one (vacuous) + none (error, judged nothing).
    summary: {
      scenarios: 4,
      passed: 1,
      failed: 1,
      vacuous: 1,
      inconclusive: 0,
      notJudged: 0,
      notSupported: 0,
      interrupted: 0,
      errors: 1,
      notStarted: 0,
      invariants: { held: 3 * INVARIANT_IDS.length - 2, broken: 2, notJudged: 0 },
    },
    scenarios: [passing(), failing(), vacuous(), harnessError()],
    interruption: null,
  };
}

/** A report whose every scenario passed (exit code 0). */
export function passingReport(): DrillReport {
  return {
    ...drillReport(),
    exitCode: 0,
    summary: {
      scenarios: 1,
      passed: 1,
      failed: 0,
      vacuous: 0,
      inconclusive: 0,
      notJudged: 0,
      notSupported: 0,
      interrupted: 0,
      errors: 0,
      notStarted: 0,
      invariants: { held: INVARIANT_IDS.length, broken: 0, notJudged: 0 },
    },
    scenarios: [passing()],
  };
}

/** crash_after_write on the stub queue: it passed, with every invariant that needs the history not judged. */
export function notJudgedScenario(): ScenarioReport {
  const name = 'crash_after_write';
  return {
    ...passing(),
    queue: 'stub',
    queueVersion: 'stub 0.0.1',
    available: { ...STUB_AVAILABLE },
    replay: `queue-drill drill scenarios.yaml --only ${name} --seed 42 --queue stub`,
    jobs: passing().jobs.map((job) => ({ ...job, located: false })),
    invariants: stubVerdicts(),
  };
}

/** A passing report (exit code 0) of one scenario on the stub queue, some of whose invariants were not judged. */
export function notJudgedReport(): DrillReport {
  const notJudged = NEEDS_HISTORY.length;
  return {
    ...drillReport(),
    command: 'queue-drill drill scenarios.yaml --seed 42 --queue stub',
    queue: 'stub',
    exitCode: 0,
    summary: {
      scenarios: 1,
      passed: 1,
      failed: 0,
      vacuous: 0,
      inconclusive: 0,
      notJudged: 0,
      notSupported: 0,
      interrupted: 0,
      errors: 0,
      notStarted: 0,
      invariants: { held: INVARIANT_IDS.length - notJudged, broken: 0, notJudged },
    },
    scenarios: [notJudgedScenario()],
  };
}

/** What the judge writes for a scenario whose producers never raced (src/judge/must-judge.ts), with a character Markdown must escape. */
export const NOTHING_JUDGED_LINE =
  "dedupe-on-enqueue had nothing to judge, yet 4 producers enqueue the same keys: it should have judged a key on which two producers' " +
  "enqueue calls were in flight at once, with the one told it created the job (no key had two producers' enqueue calls in flight at once: nothing raced) | *";

/** A report (exit code 1) of one scenario whose every fault fired and every invariant held, but dedupe-on-enqueue held on nothing: vacuous. */
export function nothingJudgedReport(): DrillReport {
  const scenario: ScenarioReport = {
    ...passing(),
    name: 'concurrent_enqueue',
    verdict: 'vacuous',
    notJudged: null,
    queueSettings: {},
    replay: REPLAY('concurrent_enqueue'),
    invariants: verdicts().map((v) =>
      v.id === 'dedupe-on-enqueue' ? { ...v, judged: 0, note: "no key had two producers' enqueue calls in flight at once: nothing raced" } : v,
    ),
    nothingJudged: [NOTHING_JUDGED_LINE],
  };
  return {
    ...drillReport(),
    exitCode: 1,
    summary: {
      scenarios: 1,
      passed: 0,
      failed: 0,
      vacuous: 1,
      inconclusive: 0,
      notJudged: 0,
      notSupported: 0,
      interrupted: 0,
      errors: 0,
      notStarted: 0,
      invariants: { held: 13, broken: 0, notJudged: 0 },
    },
    scenarios: [scenario],
  };
}

/** The note every invariant of an interrupted scenario carries, as the judge writes it (src/judge/interrupted.ts). */
export const INTERRUPTED_NOTE = 'the drill was interrupted before it reached rest: a half-run proves nothing either way';

/** What an interrupted scenario says, as the judge writes it. */
export const INTERRUPTED_LINE = 'interrupted by SIGINT 2.1 s in, before the drill reached rest';

/** zombie_worker, stopped by SIGINT 2.1 s in: a job still running, a duplicated effect seen, a fault still to fire; nothing judged. */
function stopped(): ScenarioReport {
  const name = 'zombie_worker';
  const base = failing();
  return {
    ...base,
    name,
    description: 'a worker paused past its lease must not complete over the next holder',
    verdict: 'interrupted',
    interrupted: INTERRUPTED_LINE,
    durationMs: 2100,
    runDir: `drill-runs/2026-08-25T10-00-00Z/${name}`,
    replay: REPLAY(name),
    artefacts: artefacts(name),
    faults: [
      { id: 'pause-w1', point: 'after_write', action: 'pause', arg: { ms: 60000 }, where: {}, first: 1, hits: 1, fired: 1 },
      { id: 'later', point: 'before_complete', action: 'crash', where: {}, probability: 0.5, hits: 0, fired: 0 },
    ],
    worldFaults: [],
    jobs: base.jobs.map((job) => ({ ...job, expected: { status: 'done' }, actual: { status: 'running', reason: null }, matches: false })),
    invariants: INVARIANT_IDS.map((id) => ({ id, statement: STATEMENTS[id], status: 'not_judged', judged: 0, evidence: [], note: INTERRUPTED_NOTE })),
    expectations: [],
    unfired: [],
    nothingJudged: [],
    timeline: [
      { at: '2026-08-25T10:00:00.010Z', kind: 'spawn', process: 'w1#1', pid: 4201, detail: 'worker w1' },
      { at: '2026-08-25T10:00:00.200Z', kind: 'fault-hit', process: 'w1#1', detail: 'w1 at after_claim job 1 attempt 1' },
      { at: '2026-08-25T10:00:00.400Z', kind: 'fault-fired', process: 'w1#1', detail: 'pause at after_write job 1 attempt 1 (rule pause-w1)' },
      { at: '2026-08-25T10:00:02.100Z', kind: 'watchdog', detail: 'drill ended: interrupted' },
    ],
  };
}

/** A drill interrupted by SIGINT (exit code 3): crash_after_write passed, zombie_worker was stopped before rest, two runs never started. */
export function interruptedReport(): DrillReport {
  return {
    ...drillReport(),
    exitCode: 3,
    summary: {
      scenarios: 2,
      passed: 1,
      failed: 0,
      vacuous: 0,
      inconclusive: 0,
      notJudged: 0,
      notSupported: 0,
      interrupted: 1,
      errors: 0,
      notStarted: 2,
      invariants: { held: INVARIANT_IDS.length, broken: 0, notJudged: INVARIANT_IDS.length },
    },
    scenarios: [passing(), stopped()],
    interruption: {
      by: 'SIGINT',
      notStarted: [
        { name: 'crash_after_verify', repeat: 1, queue: 'reference' },
        { name: 'world_unreachable', repeat: 1, queue: 'reference' },
      ],
    },
  };
}

/** The worst span of `inconclusiveScenario()`: the restarted worker, not run for 510 ms while it held job 1. */
export const STARVED_SPAN: StarvedSpan = {
  process: 'w1#2',
  from: '2026-08-25T10:00:01.500Z',
  to: '2026-08-25T10:00:02.010Z',
  ms: 510,
  cause: 'stalled',
};

/** The other spans: the coordinator slow to start, and the harness itself held back (it has no lane of its own). */
const OTHER_SPANS: StarvedSpan[] = [
  { process: 'coordinator#1', from: '2026-08-25T10:00:00.500Z', to: '2026-08-25T10:00:00.620Z', ms: 120, cause: 'start-up' },
  { process: 'harness', from: '2026-08-25T10:00:02.100Z', to: '2026-08-25T10:00:02.180Z', ms: 80, cause: 'stalled' },
];

/** What the judge writes for each finding starvation explains (src/judge/starvation.ts), with a character Markdown must escape. */
export const INCONCLUSIVE_LINES = [
  'no-lost-job: the drill stopped before rest (out of time) on a starved machine: 3 starved span(s) since the producers were let go at ' +
    '10:00:00.050, 710 ms in all, the worst: w1#2 was not run for 510 ms, from 10:00:01.500 to 10:00:02.010; every unfinished job was due ' +
    'less than 1100 ms of unstarved time before the drill stopped',
  'job 1 ended running, not done, after w1#2 was not run for 510 ms, from 10:00:01.500 to 10:00:02.010 during its life ' +
    '(250 ms or more can cost a holder its lease or a caller its answer) | <i>*</i>',
];

/**
 * slow_machine, retried at twice the time scale and still starved: its job was
 * still running when the drill ran out of time (no-lost-job broke, a liveness
 * invariant), and a starved span explains both findings; no safety invariant
 * broke, so it is inconclusive, neither a pass nor a failure.
 */
export function inconclusiveScenario(): ScenarioReport {
  const name = 'slow_machine';
  const base = passing();
  const spans = [OTHER_SPANS[0]!, STARVED_SPAN, OTHER_SPANS[1]!];
  const job = base.jobs[0]!;
  return {
    ...base,
    name,
    description: 'a worker killed after its write; on this machine the restarted worker was starved while it held the job',
    verdict: 'inconclusive',
    inconclusive: [...INCONCLUSIVE_LINES],
    starvation: { spans, totalMs: 710, worst: STARVED_SPAN },
    timeScale: 2,
    durationMs: 8400,
    runDir: `drill-runs/2026-08-25T10-00-00Z/${name}`,
    replay: REPLAY(name),
    artefacts: artefacts(name),
    jobs: [
      {
        ...job,
        actual: { status: 'running', reason: null },
        matches: false,
        events: job.events.filter((event) => !(event.kind === 'transition' && event.to === 'done')),
      },
    ],
    recovery: [{ ...base.recovery[0]!, settledAt: null, killToSettledMs: null }],
    invariants: verdicts({ 'no-lost-job': ['job 1 (key ab12cd34ef56ab78) is running, not done or in review, when the drill stopped'] }),
    expectations: ['job 1 (ab12cd34ef56ab78): expected done, ended running'],
    timeline: [
      { at: '2026-08-25T10:00:00.000Z', kind: 'spawn', process: 'coordinator#1', pid: 4100, detail: 'coordinator' },
      ...base.timeline.slice(0, 1),
      { at: '2026-08-25T10:00:00.120Z', kind: 'ready', process: 'w1#1', detail: 'worker w1 up 120 ms after its start', ms: 120 },
      ...base.timeline.slice(1, 4),
      ...starvedEvents([OTHER_SPANS[0]!]),
      { at: '2026-08-25T10:00:00.620Z', kind: 'ready', process: 'coordinator#1', detail: 'coordinator up 620 ms after its start', ms: 620 },
      ...starvedEvents([STARVED_SPAN, OTHER_SPANS[1]!]),
      { at: '2026-08-25T10:00:08.400Z', kind: 'watchdog', detail: 'drill ended: out of time before rest' },
    ],
  };
}

/** A drill (exit code 4) where crash_after_write passed and slow_machine was starved past judging: nothing failed, one inconclusive. */
export function inconclusiveReport(): DrillReport {
  const scenarios = [passing(), inconclusiveScenario()];
  return {
    ...drillReport(),
    exitCode: 4,
    summary: {
      scenarios: 2,
      passed: 1,
      failed: 0,
      vacuous: 0,
      inconclusive: 1,
      notJudged: 0,
      notSupported: 0,
      interrupted: 0,
      errors: 0,
      notStarted: 0,
      invariants: { held: 2 * INVARIANT_IDS.length - 1, broken: 1, notJudged: 0 },
    },
    scenarios,
  };
}

/** What `retriedReport()`'s drill measured before its first scenario, and the scale it chose. */
export const CALIBRATION = { startupMs: 589, timerLatenessMs: 4, scale: 1.5 };

/** The first line starvation explained in the earlier, starved attempt of `retriedScenario()`, with text every view must escape. */
export const EARLIER_INCONCLUSIVE_LINE =
  'job 1 ended running, not done, after w1#2 was not run for 640 ms, from 10:00:01.500 to 10:00:02.140 | <i>"starved"</i> & *]]>';

/** The run directory of `retriedScenario()`'s earlier attempt (the retry's is beside it, `.retry1`). */
export const EARLIER_RUN_DIR = 'drill-runs/2026-08-25T10-00-00Z/slow_machine';

/** slow_machine, starved at ×1.5 (inconclusive), then run again at ×3, where it passed: the entry is the last run's. */
export function retriedScenario(): ScenarioReport {
  const name = 'slow_machine';
  return {
    ...passing(),
    name,
    description: 'a worker killed after its write; the first attempt was starved, the second at twice the scale was not',
    timeScale: 3,
    earlierAttempts: [
      {
        timeScale: 1.5,
        verdict: 'inconclusive',
        runDir: EARLIER_RUN_DIR,
        durationMs: 8400,
        inconclusive: [EARLIER_INCONCLUSIVE_LINE, INCONCLUSIVE_LINES[0]!],
      },
    ],
    durationMs: 6100,
    runDir: `${EARLIER_RUN_DIR}.retry1`,
    replay: `${REPLAY(name)} --time-scale 3`,
    artefacts: artefacts(`${name}.retry1`),
  };
}

/** A drill (exit code 0) at the time scale it chose (×1.5): crash_after_write passed, slow_machine passed on its second attempt. */
export function retriedReport(): DrillReport {
  return {
    ...passingReport(),
    command: 'queue-drill drill scenarios.yaml --seed 42 --queue reference --retry-inconclusive 1',
    timeScale: 1.5,
    calibration: { ...CALIBRATION },
    summary: { ...passingReport().summary, scenarios: 2, passed: 2, invariants: { held: 2 * INVARIANT_IDS.length, broken: 0, notJudged: 0 } },
    scenarios: [{ ...passing(), timeScale: 1.5 }, retriedScenario()],
  };
}
