import * as z from 'zod';
import { FAULT_ACTION_NAMES } from '../faults/actions/index.js';
import { FAILPOINTS } from '../faults/points.js';
import { EXIT, type ExitCode, QueueDrillError } from '../kernel/errors.js';
import { EVIDENCE_KINDS, type EvidenceKind, EXPECTED_STATUSES, INVARIANT_IDS, INVARIANT_STATUSES, TIMELINE_KINDS } from '../kernel/vocabulary.js';
import { allJudgedPassed, scenarioVerdict, summarize } from './verdict.js';

/*
 * The recovery report, version 2: the one source of truth for what a drill
 * found. report.json is this schema's output; the Markdown and JUnit views and
 * `replay`/comparisons read it; report.schema.json is generated from it for
 * tools in other languages. Objects are strict: a field the schema does not
 * name is a writer's bug (or a newer report), never silently carried along.
 *
 * Beyond shapes, the report must agree with itself (checked in
 * `DrillReportSchema`'s refinement, which JSON Schema cannot express): each
 * scenario's verdict follows from its contents, the summary counts the
 * verdicts, and exit code 0 means every scenario passed. A report that says
 * "pass" over a broken invariant would turn a CI gate green on a bug.
 */

/**
 * The version of the report's shape; bumped on any change a reader must know
 * about. 2: a verdict has a status (held, broken, not_judged) instead of
 * `holds`; job ids are text; each scenario says which evidence its queue could
 * give; the summary counts invariant verdicts; timeline events carry their
 * point, worker, job, attempt and step as fields. 3: a verdict says how many
 * items it `judged` (0: it had nothing to judge); a scenario lists in
 * `nothingJudged` each invariant that had nothing to judge where its content
 * should have given it something, which makes it vacuous. 4: a scenario the
 * queue could not run as asked (a lease below its minimum) is `not_judged`,
 * with the queue's reason in `notJudged`; `queueSettings` holds the queue's own
 * options the adapter set from the scenario; the summary counts not judged
 * scenarios; `timeScale` says by how much every duration was stretched. 5: a
 * failing scenario's `replay` names the invariants it broke (`--expect-broken`),
 * and a run given them says in `reproduction` whether it broke the same. 6:
 * each job carries its life as data in `events` (state changes, refused
 * writes, checkpoints, effects, incidents), for views that draw it; with
 * --baseline, `baseline` says what regressed against an earlier run; with
 * --shard, `shard` says which share of the drill this is, and a report
 * `merge` joined from shards lists them in `merged`. 7: a
 * drill interrupted (Ctrl-C, SIGTERM) says so: a scenario it stopped before
 * rest is `interrupted` (its reason in `interrupted`; nothing judged, nothing
 * claimed broken), `interruption` names the signal and each scenario run that
 * never started, and the summary counts both; each fault keeps its limits
 * (`first`, `probability`; a world fault its `times`) and its argument (`arg`);
 * later, without a version of its own (a reader may ignore it): each
 * scenario's `phases`, where its wall time went. 8: each scenario measures how
 * the machine starved it (`starvation`: every span a process was not run, and
 * `starved` spans on its timeline, with `until`; `ready` when a process was up)
 * and runs at its own `timeScale`; a scenario whose every liveness breach,
 * wrong path and unfired fault a starved span explains, with no safety breach,
 * is `inconclusive` (the lines in `inconclusive`), counted apart in the
 * summary, and a drill whose worst is inconclusive exits 4. 9: a scenario
 * lists the invariants it exists to check (`checks`); one of them not judged
 * (the queue cannot give its evidence) makes it `not_judged` with the lines in
 * `unjudgedChecks`, never a pass; a queue lacking a feature the scenario needs
 * (a compensator, a server to restart) makes it `not_supported`, with the
 * reason in `notSupported`; `queueOptions` holds the queue's own options as
 * its users set them (defaults filled in), and `queueTiming` says where the
 * queue's own clock made the drill wait longer than the scenario asked. 10:
 * a job's life is data only (`events`, the views render it: the rendered
 * `history` lines are gone), its events carry what the lines said beside them
 * (a checkpoint's `ref` and `detail`, an effect's `attempt` and `ref`, an
 * incident's `status` and `error`, and `placed` where a measured clock moved a
 * stamp), and a job waiting for a person's approval carries the command that
 * gives it (`approve`).
 */
export const REPORT_VERSION = 10;

/** Every verdict a scenario can get, from best to worst meaning. */
export const SCENARIO_VERDICTS = ['pass', 'fail', 'vacuous', 'inconclusive', 'not_judged', 'not_supported', 'interrupted', 'error'] as const;

/**
 * A scenario's verdict: pass, fail (an invariant broke or a job ended wrong), vacuous (an armed fault never fired, or an
 * invariant had nothing to judge where the scenario should have given it something), inconclusive (the machine starved
 * the drill: every liveness breach, wrong path and unfired fault is explained by a starved span, no safety invariant
 * broke; never a pass), not_judged (the queue cannot run
 * it as asked, and said why before anything ran; or an invariant the scenario exists to check could not be judged),
 * not_supported (the queue lacks a feature the scenario needs, and said which), interrupted (the harness was stopped before the drill reached rest:
 * a half-run, so nothing is judged), error (the harness failed).
 */
export type ScenarioVerdict = (typeof SCENARIO_VERDICTS)[number];

const utcTimestamp = () => z.iso.datetime({ error: 'expected a UTC ISO 8601 timestamp ending in Z' });
const count = () => z.int().min(0);
const milliseconds = () => z.number().min(0);
const text = () => z.string().min(1);

/** An invariant's judgement: held, broken (with the evidence that breaks it), or not judged (with the reason). */
export const VerdictSchema = z.strictObject({
  id: z.enum(INVARIANT_IDS),
  statement: text(),
  status: z
    .enum(INVARIANT_STATUSES)
    .describe('held; broken (see evidence); or not_judged: the queue could not give the evidence it needs (see note)'),
  judged: count().describe(
    'how many items it examined, in its own unit (jobs, leases, keys, places: docs/design.md); 0: it had nothing to judge (see note); 0 when not judged',
  ),
  evidence: z.array(z.string()).describe('one line per piece of breaking evidence; empty unless broken'),
  note: z.string().optional().describe('for not_judged, why; otherwise what it could not judge, or had nothing to judge'),
});

/** What the harness itself saw happen (at a failpoint, with where the process was), in order. */
export const TimelineEventSchema = z.strictObject({
  at: utcTimestamp(),
  kind: z.enum(TIMELINE_KINDS),
  process: z.string().optional(),
  pid: z.int().optional(),
  detail: z.string(),
  point: z.enum(FAILPOINTS).optional(),
  action: z.enum(FAULT_ACTION_NAMES).optional(),
  ms: z.int().min(0).optional(),
  until: utcTimestamp().optional().describe('a span (starved): when it ended; `at` is when it began'),
  worker: z.string().optional(),
  job: z.string().optional(),
  attempt: z.int().optional(),
  step: z.string().optional(),
  exitCode: z.int().optional().describe('an exit: the code the process exited with'),
  signal: z.string().optional().describe('an exit: the signal that ended the process'),
});

/** A time a process was not run when it should have been (src/kernel/starvation-watch.ts), or a start past a normal one. */
export const StarvedSpanSchema = z.strictObject({
  process: text().describe('as the timeline names it (w1#2, coordinator#1, world-host#1, harness)'),
  from: utcTimestamp(),
  to: utcTimestamp(),
  ms: z.int().min(0).describe('how late: how long it was not run'),
  cause: z
    .enum(['stalled', 'start-up'])
    .describe('stalled: a timer fired late (a busy machine, a held event loop); start-up: slow from spawn to its first line'),
});

/** One starved span. */
export type StarvedSpan = z.infer<typeof StarvedSpanSchema>;

/** What a scenario says a job must end as (`reason`: a regular expression the review reason must match). */
export const ExpectationSchema = z.strictObject({
  status: z.enum(EXPECTED_STATUSES),
  reason: z.string().optional().describe('a regular expression the review reason must match'),
});

/** One effect key the world's ledger applied more than once. */
export const DuplicatedEffectSchema = z.strictObject({
  key: text(),
  tool: text(),
  times: z.int().min(2),
});

/** Where the drill's one time base puts a stamp its writer's measured clock moved (absent: the stamp stands as written). */
const PlacedSchema = z
  .strictObject({ at: text().describe("the harness's time"), by: text().describe('the clock that moved it, and by how much') })
  .optional();

/**
 * One thing that happened to a job, from the evidence (not a process's word),
 * structured so a view can draw it: a state change (or a write refused for a
 * stale lease) in the queue's history, a checkpoint in the transaction log, an
 * effect the world applied, an incident. Times are those the writer recorded
 * (`placed`: where the drill's one time base puts one a measured clock moved);
 * the events are in the order of that time base.
 */
export const JobEventSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.enum(['transition', 'refused']),
    at: text(),
    seq: z.int(),
    from: z.string().nullable(),
    to: text(),
    attempt: z.int(),
    epoch: z.int(),
    worker: z.string().nullable(),
    actor: text(),
    reason: z.string(),
    placed: PlacedSchema,
  }),
  z.strictObject({
    kind: z.literal('checkpoint'),
    at: text(),
    id: z.int(),
    step: text(),
    action: text(),
    status: text(),
    attempt: z.int(),
    epoch: z.int(),
    worker: z.string(),
    ref: z.string().nullable().describe("the external system's reference the step recorded"),
    detail: z.string().nullable(),
    placed: PlacedSchema,
  }),
  z.strictObject({
    kind: z.literal('effect'),
    at: text(),
    seq: z.int(),
    step: text(),
    tool: text(),
    key: text(),
    epoch: z.int().nullable(),
    worker: text(),
    attempt: z.int(),
    ref: text().describe('the reference the world answered with'),
    compensation: z.boolean(),
  }),
  z.strictObject({ kind: z.literal('incident'), at: text(), id: z.int(), step: text(), status: text(), error: z.string() }),
]);

/** One thing that happened to a job (see JobEventSchema). */
export type JobEvent = z.infer<typeof JobEventSchema>;

/** One job: what it should have ended as, what it did, and its life rebuilt from the history. */
export const JobReportSchema = z.strictObject({
  id: z.string().nullable().describe("the queue's id for the job; null when no job has its key"),
  key: text(),
  expected: ExpectationSchema,
  actual: z.strictObject({
    status: text().describe("the store's final status, or the saga's outcome"),
    reason: z.string().nullable(),
  }),
  matches: z.boolean(),
  attempts: count(),
  maxAttempts: count(),
  duplicatedEffects: z.array(DuplicatedEffectSchema),
  located: z.boolean().describe("whether the job's life could be rebuilt from the history by its id"),
  approve: z.string().nullable().describe('the command that gives the approval the job waits for, while its store outlives the drill'),
  events: z.array(JobEventSchema).describe("the same life as data, in time order: the queue's history, checkpoints, the world's effects, incidents"),
});

/** A fault rule armed at a named point, with its limits, and what it did. */
export const FaultReportSchema = z.strictObject({
  id: text(),
  point: text(),
  action: text(),
  arg: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe("the action's argument as the scenario gave it (ms, code, kind, message); absent when it has none"),
  where: z.record(z.string(), z.union([z.string(), z.number()])),
  first: z.int().min(1).optional().describe('only the first N matching hits could fire; absent: every hit could (a poison fault)'),
  probability: z.number().min(0).max(1).optional().describe('the chance each matching hit fired, drawn from the seed; absent: 1'),
  hits: count(),
  fired: count(),
});

/** A network-side fault armed on the world, and how often it fired. */
export const WorldFaultReportSchema = z.strictObject({
  id: z.int().min(1),
  match: z.string(),
  action: text(),
  times: z.int().min(1).describe('its limit: how many matching calls it may fire on'),
  fired: count(),
});

/** One kill, and how long the queue took to take the job back and settle it. */
export const RecoveryReportSchema = z.strictObject({
  process: text(),
  killedAt: utcTimestamp(),
  point: z.string().nullable(),
  jobId: z.string().nullable(),
  reclaimedAt: utcTimestamp().nullable(),
  settledAt: utcTimestamp().nullable(),
  killToReclaimMs: milliseconds().nullable(),
  killToSettledMs: milliseconds().nullable(),
});

/**
 * Where one scenario's wall time went, phase by phase, in the order they run
 * (what happened inside the drill is on its timeline). Not in a report of a
 * scenario that never ran, nor in one written before it was added.
 */
export const ScenarioPhasesSchema = z.strictObject({
  startedAt: utcTimestamp(),
  provisionMs: milliseconds().describe("the drill's queue made, and the harness connected to it"),
  drillMs: milliseconds().describe('the world and the processes started, and supervised until the drill ended (at rest, stuck, out of time)'),
  stopMs: milliseconds().describe('every process stopped'),
  evidenceMs: milliseconds().describe('the evidence gathered'),
  teardownMs: milliseconds().describe("the queue and the harness's connection released"),
  judgeMs: milliseconds().describe('the invariants judged and the report entry made'),
});

/** One run of one scenario. */
export const ScenarioReportSchema = z.strictObject({
  name: text(),
  description: z.string(),
  queue: text(),
  queueVersion: text(),
  available: z
    .strictObject(
      Object.fromEntries(EVIDENCE_KINDS.map((kind) => [kind, z.union([z.literal(true), text()])])) as Record<
        EvidenceKind,
        z.ZodUnion<[z.ZodLiteral<true>, z.ZodString]>
      >,
    )
    .describe('each kind of evidence: given by the queue (true), or why not'),
  seed: z.int(),
  repeat: z.int().min(1).describe('1-based run index when --repeat'),
  verdict: z.enum(SCENARIO_VERDICTS),
  notJudged: z.string().nullable().describe('why the queue could not run this scenario as asked (nothing ran), or null'),
  notSupported: z.string().nullable().describe('the feature the queue lacks that this scenario needs, and why (nothing ran), or null'),
  checks: z.array(z.enum(INVARIANT_IDS)).describe('the invariants this scenario exists to check'),
  unjudgedChecks: z
    .array(text())
    .describe('one line per invariant of `checks` the queue could not give the evidence for: the scenario is then not judged, never passed'),
  interrupted: z
    .string()
    .nullable()
    .describe('why the drill stopped before it reached rest (the harness was interrupted), or null; every invariant is then not judged'),
  inconclusive: z
    .array(text())
    .nullable()
    .describe(
      'when the machine starved the drill: one line per finding a starved span explains (a liveness breach, a job that took ' +
        'another path, a fault that never fired), each naming the process and its span; null otherwise',
    ),
  starvation: z
    .strictObject({
      spans: z.array(StarvedSpanSchema),
      totalMs: milliseconds().describe('the spans added up (processes starved at once count each)'),
      worst: StarvedSpanSchema.nullable(),
    })
    .describe('how much the machine starved the drill'),
  timeScale: z.number().positive().describe('every duration of this scenario was multiplied by this'),
  earlierAttempts: z
    .array(
      z.strictObject({
        timeScale: z.number().positive(),
        verdict: z.enum(SCENARIO_VERDICTS),
        runDir: text(),
        durationMs: milliseconds(),
        inconclusive: z.array(text()).nullable(),
      }),
    )
    .optional()
    .describe(
      'with --retry-inconclusive, or after --parallel auto went back to fewer at once: each earlier run of this scenario that was inconclusive, ' +
        'in order; this entry is the last run',
    ),
  queueSettings: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .describe("the queue's own options as its adapter set them from the scenario (lease, attempts, retries); empty for the built-in queues"),
  queueOptions: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .describe("the queue's own options as its users set them (--queue-option, queue_options), every other at its default"),
  queueTiming: z
    .string()
    .nullable()
    .describe("where the queue's own clock (its retry backoff, its recovery) made the drill wait longer than the scenario asked, or null"),
  world: z
    .enum(['fenced', 'plain'])
    .optional()
    .describe("fenced: the world refused a call under an older lease's epoch than one it had seen; plain: it applied what it was sent"),
  durationMs: milliseconds(),
  phases: ScenarioPhasesSchema.optional().describe("where the scenario's wall time went"),
  runDir: text(),
  replay: text().describe('the exact command that replays this scenario (a failing one: with the invariants it broke, --expect-broken)'),
  reproduction: z
    .strictObject({
      expected: z.array(z.enum(INVARIANT_IDS)).describe('the invariants the run being replayed broke (--expect-broken)'),
      broken: z.array(z.enum(INVARIANT_IDS)).describe('the invariants this run broke'),
      reproduced: z.boolean().describe('whether this run broke exactly the same invariants'),
    })
    .optional()
    .describe('for a replay given --expect-broken: whether it reproduced the run it replays'),
  faultPoints: z.array(text()),
  faults: z.array(FaultReportSchema),
  worldFaults: z.array(WorldFaultReportSchema),
  unfired: z.array(text()).describe('one line per armed fault that never fired'),
  nothingJudged: z
    .array(text())
    .describe('one line per invariant that had nothing to judge where the scenario should have given it something (src/judge/must-judge.ts)'),
  jobs: z.array(JobReportSchema),
  duplicatedEffects: z.array(z.strictObject({ key: text(), tool: text(), times: z.int().min(2), appliedBy: z.array(z.string()) })),
  recovery: z.array(RecoveryReportSchema),
  invariants: z.array(VerdictSchema),
  expectations: z.array(text()).describe('one line per job that did not end as expected'),
  timeline: z.array(TimelineEventSchema),
  error: z.string().nullable().describe('why the harness itself failed, or null'),
  artefacts: z.strictObject({ store: text(), ledger: text(), logs: z.array(text()) }),
});

/** How many scenarios got each verdict, and how the invariants came out across them (not judged apart from held). */
export const ReportSummarySchema = z.strictObject({
  scenarios: count(),
  passed: count(),
  failed: count(),
  vacuous: count(),
  inconclusive: count().describe('scenario runs the machine starved: never a pass, never a failure'),
  notJudged: count(),
  notSupported: count().describe('scenario runs that need a feature the queue lacks'),
  interrupted: count().describe('scenario runs stopped before they reached rest'),
  errors: count(),
  notStarted: count().describe('scenario runs the drill never started, because it was interrupted first (listed in `interruption`)'),
  invariants: z.strictObject({ held: count(), broken: count(), notJudged: count() }),
});

/** One run of a scenario: its name, its 1-based run index (--repeat), and the queue it would have run on. */
export const ScenarioRunSchema = z.strictObject({ name: text(), repeat: z.int().min(1), queue: text() });

/** A drill stopped before it finished (Ctrl-C, SIGTERM): by what, and which scenario runs never started. */
/** What an unfinished report's interruption names when no signal came: nothing has stopped the drill yet (src/report/progress-report.ts). */
export const UNFINISHED = 'nothing yet';

export const InterruptionSchema = z.strictObject({
  by: text().describe(
    'what stopped it: the signal (SIGINT, SIGTERM), "an abort" when the caller gave none, or the loss of the queue\'s server; ' +
      `"${UNFINISHED}" in an unfinished report nothing has stopped`,
  ),
  notStarted: z.array(ScenarioRunSchema).describe('each scenario run that never started, in the order it would have run'),
  unfinished: z
    .literal(true)
    .optional()
    .describe(
      'the report was written while the drill ran (at its start, after each verdict, at a signal): the drill is still running, or it ended ' +
        'without its final report (killed). Every verdict in it is final; the runs in notStarted are not judged yet',
    ),
});

/** What changed against an earlier run (--baseline; src/report/baseline.ts): a regression fails the run. */
export const BaselineComparisonSchema = z.strictObject({
  baseline: text().describe('the report.json compared with'),
  tolerance: z.strictObject({ ratio: z.number().positive(), slackMs: milliseconds() }).describe('how much longer a recovery may take'),
  regressions: z.array(z.strictObject({ scenario: text(), kind: z.enum(['now-fails', 'now-vacuous', 'slower-recovery']), detail: text() })),
  improvements: z.array(text()),
  added: z.array(text()).describe('scenarios the baseline did not run'),
  missing: z.array(text()).describe('scenarios the baseline ran and this run did not'),
  notRun: z
    .int()
    .nonnegative()
    .optional()
    .describe("with --only: how many of the baseline's scenario runs this run left out on purpose (neither compared nor listed in missing)"),
});

type Issue = (path: PropertyKey[], message: string) => void;
type ReportShape = z.infer<typeof DrillReportShape>;

/** Each verdict follows from its scenario's contents; a run appears once; an interrupted run claims nothing. */
function checkScenarios(scenarios: ReportShape['scenarios'], issue: Issue): void {
  const seen = new Set<string>();
  scenarios.forEach((scenario, index) => {
    const derived = scenarioVerdict(scenario);
    if (scenario.verdict !== derived)
      issue(['scenarios', index, 'verdict'], `is ${scenario.verdict}, but the scenario's contents make it ${derived}`);
    const run = `${scenario.name}#${scenario.repeat}`;
    if (seen.has(run)) issue(['scenarios', index, 'repeat'], `scenario ${scenario.name} run ${scenario.repeat} appears twice`);
    seen.add(run);
    // A half-run proves nothing either way: no invariant of it may be claimed held or broken.
    if (scenario.interrupted !== null) {
      scenario.invariants.forEach((v, i) => {
        if (v.status !== 'not_judged') issue(['scenarios', index, 'invariants', i, 'status'], `is ${v.status}, but the scenario was interrupted`);
      });
    }
  });
}

/** The summary counts the verdicts, and exit code 0 means every scenario the queue could run passed. */
function checkCounts(report: ReportShape, issue: Issue): void {
  const expected = summarize(report.scenarios, report.interruption?.notStarted.length ?? 0);
  for (const field of [
    'scenarios',
    'passed',
    'failed',
    'vacuous',
    'inconclusive',
    'notJudged',
    'notSupported',
    'interrupted',
    'errors',
    'notStarted',
  ] as const) {
    if (report.summary[field] !== expected[field])
      issue(['summary', field], `is ${report.summary[field]}, but the scenarios count ${expected[field]}`);
  }
  for (const field of ['held', 'broken', 'notJudged'] as const) {
    if (report.summary.invariants[field] !== expected.invariants[field]) {
      issue(['summary', 'invariants', field], `is ${report.summary.invariants[field]}, but the scenarios count ${expected.invariants[field]}`);
    }
  }
  if (report.exitCode === 0 && !allJudgedPassed(expected))
    issue(['exitCode'], 'is 0, but not every scenario the queue could run passed (or none ran)');
  if (report.exitCode === 0 && (report.baseline?.regressions.length ?? 0) > 0)
    issue(['exitCode'], 'is 0, but the run regressed against its baseline');
}

/** An interrupted scenario needs the drill's interruption, and an interrupted drill exits 3. */
function checkInterruption(report: ReportShape, issue: Issue): void {
  if (report.interruption === null) {
    const index = report.scenarios.findIndex((s) => s.interrupted !== null);
    if (index >= 0) issue(['scenarios', index, 'interrupted'], 'says the scenario was interrupted, but the report has no interruption');
    return;
  }
  if (report.exitCode !== 3) issue(['exitCode'], `is ${report.exitCode}, but the drill was interrupted (3)`);
}

/** The whole report of one `queue-drill` invocation. */
const DrillReportShape = z.strictObject({
  version: z.literal(REPORT_VERSION),
  tool: z.literal('queue-drill'),
  toolVersion: text(),
  command: text().describe('the command line as run'),
  file: text().describe('the scenarios file'),
  queue: text(),
  seed: z.int(),
  timeScale: z
    .number()
    .positive()
    .describe(
      'every duration of every scenario was multiplied by this (--time-scale, or chosen by auto; for shards merged that auto calibrated apart, ' +
        'the largest, each scenario saying its own)',
    ),
  calibration: z
    .strictObject({
      startupMs: milliseconds().describe('the slower of two processes started at once: spawn to first line'),
      timerLatenessMs: milliseconds().describe('how late a 10 ms timer fired in the harness (90th percentile)'),
      scale: z.number().positive(),
    })
    .nullable()
    .optional()
    .describe('with --time-scale auto: what the machine measured before the first scenario, and the scale it chose; null when a scale was given'),
  lanes: z
    .strictObject({
      count: z.int().min(1).describe('how many scenarios ran at once from the start'),
      chosen: z.enum(['given', 'auto']).describe('--parallel N, or auto: more at once on a machine the calibration found quiet'),
      why: text(),
      narrowedAfter: text()
        .nullable()
        .describe('auto: the scenario whose inconclusive run sent the drill back to 2 at once for the rest (that scenario ran again); null'),
    })
    .optional()
    .describe('how many scenarios the drill ran at once, and why'),
  startedAt: utcTimestamp(),
  finishedAt: utcTimestamp(),
  durationMs: milliseconds(),
  exitCode: z.literal([0, 1, 2, 3, 4]),
  summary: ReportSummarySchema,
  scenarios: z.array(ScenarioReportSchema),
  interruption: InterruptionSchema.nullable().describe('when the drill was interrupted: by what, and what never started; null when it was not'),
  baseline: BaselineComparisonSchema.optional().describe('with --baseline: what changed against the earlier run'),
  shard: z
    .strictObject({
      index: z.int().min(1),
      count: z.int().min(1),
      order: z.array(text()).describe('every scenario run of the whole drill (name#repeat), in its order: what `merge` puts the shards back into'),
    })
    .optional()
    .describe('with --shard i/n: which share of the drill this run is'),
  merged: z
    .array(
      z.strictObject({
        index: z.int().min(1),
        report: text().describe("the shard's report.json as merge read it"),
        command: text().describe("the shard's command line"),
        startedAt: utcTimestamp(),
        durationMs: milliseconds(),
        exitCode: z.literal([0, 1, 2, 3, 4]),
      }),
    )
    .optional()
    .describe('made by merge: the shard reports joined into this one, by share'),
});

/** The whole report of one `queue-drill` invocation, held to agreeing with itself. */
export const DrillReportSchema = DrillReportShape.superRefine((report, ctx) => agreesWithItself(report, ctx)).meta({
  title: 'queue-drill recovery report',
  description:
    `Version ${REPORT_VERSION} of the report queue-drill writes to report.json: per scenario, the faults armed and fired, each job's expected ` +
    `and actual end, duplicated effects, recovery times, every invariant's verdict with its evidence, and the command that replays it.`,
});

/** One earlier run of a retried scenario (--retry-inconclusive, or auto's lanes going back to fewer). */
export type EarlierAttempt = NonNullable<ScenarioReport['earlierAttempts']>[number];

/** The whole report. */
export type DrillReport = z.infer<typeof DrillReportSchema>;

/** What holds a report to agreeing with itself: its counts, its scenarios, its interruption and shard, its times. */
function agreesWithItself(report: z.infer<typeof DrillReportShape>, ctx: z.RefinementCtx): void {
  const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  checkScenarios(report.scenarios, issue);
  checkCounts(report, issue);
  checkInterruption(report, issue);
  if (report.shard && report.shard.index > report.shard.count)
    issue(['shard', 'index'], `is ${report.shard.index}, past the shard count ${report.shard.count}`);
  if (Date.parse(report.finishedAt) < Date.parse(report.startedAt))
    issue(['finishedAt'], `${report.finishedAt} is before startedAt ${report.startedAt}`);
}

/**
 * The report with its scenarios taken as already checked: the rest of it, and how it all agrees, checked as
 * DrillReportSchema does. For a report whose every scenario object was checked before (checkReport).
 */
const ReportAroundCheckedScenarios = DrillReportShape.extend({ scenarios: z.array(z.custom<ScenarioReport>()) }).superRefine((report, ctx) =>
  agreesWithItself(report, ctx),
);

/**
 * Scenario objects already found valid, as given: a drill writes its report after every verdict, each time with
 * every scenario before it (the same objects), and a scenario's check is most of the report's.
 */
const checkedScenarios = new WeakSet<object>();
/** One run of one scenario. */
export type ScenarioReport = z.infer<typeof ScenarioReportSchema>;
/** One job of a scenario. */
export type JobReport = z.infer<typeof JobReportSchema>;
/** A fault rule at a named point. */
export type FaultReport = z.infer<typeof FaultReportSchema>;
/** A fault armed on the world. */
export type WorldFaultReport = z.infer<typeof WorldFaultReportSchema>;
/** One kill and its recovery times. */
export type RecoveryReport = z.infer<typeof RecoveryReportSchema>;
/** Where a scenario's wall time went. */
export type ScenarioPhases = z.infer<typeof ScenarioPhasesSchema>;
/** Verdict counts. */
export type ReportSummary = z.infer<typeof ReportSummarySchema>;

/** The report's JSON Schema (draft 2020-12), for tools that do not read TypeScript. */
export function reportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(DrillReportSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}

/** One problem with a report: where (e.g. "scenarios[1].invariants[0].status") and what. */
export interface ReportIssue {
  path: string;
  message: string;
}

/**
 * A report that cannot be written or read. `QD_REPORT_INVALID`: queue-drill
 * built a report that does not validate (a bug in the harness).
 * `QD_REPORT_WRITE_FAILED`: the files or the `latest` link could not be
 * written. `QD_BAD_REPORT_FILE`: a report.json given to read is missing, not
 * JSON, or not a report this version understands.
 */
export class ReportError extends QueueDrillError {
  override readonly name = 'ReportError';
  /** A report file given to read is the user's input; the others are queue-drill's failures. */
  readonly exitCode: ExitCode;
  constructor(
    readonly code: 'QD_REPORT_INVALID' | 'QD_REPORT_WRITE_FAILED' | 'QD_BAD_REPORT_FILE',
    message: string,
    readonly issues: readonly ReportIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(issues.length === 0 ? message : `${message}\n${issues.map((i) => `  ${i.path || '(report)'}: ${i.message}`).join('\n')}`, options);
    this.exitCode = code === 'QD_BAD_REPORT_FILE' ? EXIT.badInput : EXIT.harnessFailed;
  }
}

/** Validates a value as a report: the report, or every issue with its path. */
export function checkReport(value: unknown): { ok: true; report: DrillReport } | { ok: false; issues: ReportIssue[] } {
  const scenarios = scenariosOf(value);
  // Each scenario not seen before checked alone; if one fails, the whole report is, for every issue with its path.
  const fresh = scenarios?.filter((scenario) => !checkedScenarios.has(scenario));
  if (scenarios && fresh?.every((scenario) => ScenarioReportSchema.safeParse(scenario).success)) {
    for (const scenario of fresh) checkedScenarios.add(scenario);
    const around = ReportAroundCheckedScenarios.safeParse(value);
    // The scenarios as given (valid, so as parsing would make them: the schema has no defaults or transforms).
    if (around.success) return { ok: true, report: { ...around.data, scenarios: scenarios as ScenarioReport[] } };
  }
  const result = DrillReportSchema.safeParse(value);
  if (result.success) return { ok: true, report: result.data };
  return { ok: false, issues: result.error.issues.map((issue) => ({ path: formatPath(issue.path), message: issue.message })) };
}

/** A report's scenarios, when it has a list of them all objects; else undefined (the full check says what is wrong). */
function scenariosOf(value: unknown): object[] | undefined {
  const scenarios = typeof value === 'object' && value !== null && 'scenarios' in value ? value.scenarios : undefined;
  return Array.isArray(scenarios) && scenarios.every((s) => typeof s === 'object' && s !== null) ? scenarios : undefined;
}

// "scenarios[1].invariants[0].status": the way a person would write it in jq or JavaScript.
function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`)).join('');
}

/** An invariant's judgement (the evidence's Verdict is this type: one definition, read by the judge and the views). */
export type Verdict = z.infer<typeof VerdictSchema>;
/** One event of the harness's timeline. */
export type TimelineEvent = z.infer<typeof TimelineEventSchema>;
/** What a scenario expects of one job. */
export type Expectation = z.infer<typeof ExpectationSchema>;
