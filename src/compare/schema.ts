import * as z from 'zod';
import { INVARIANT_IDS } from '../kernel/vocabulary.js';
import { ReportSummarySchema, SCENARIO_VERDICTS } from '../report/schema.js';

/*
 * compare.json: the same scenarios, with the same seed, against several
 * queues, as one matrix of scenario × queue. Each cell is the verdict of that
 * scenario on that queue (the drill's own report is beside it), what broke
 * with one line of evidence each, how long the queue took from the fault to
 * the job done again, and whether the cell is what the command was asked to
 * expect. A column whose queue could not be reached has its reason, and its
 * cells are errors; the other columns still ran.
 */

/**
 * The version of compare.json's shape; bumped on any change a reader must know
 * about. 2: a cell's verdict may be `interrupted` (its column was stopped
 * before the drill reached rest), and a column's summary counts interrupted
 * and never-started runs (report version 7). 3: a cell's verdict may be
 * `inconclusive` (the machine starved it; its `why` names the starved span),
 * and a column's summary counts inconclusive runs (report version 8). 4: a
 * cell holds every run of its scenario (--repeat, one seed each) and is
 * `flaky` when they disagree; it lists the invariants it could not judge and
 * the ones its scenario exists to check (`checks`; one of those not judged
 * makes the cell not judged); `not_supported` is a verdict (the queue lacks a
 * feature the scenario needs); each column says the queue options it ran
 * with; the comparison says its repeat count.
 */
export const COMPARE_VERSION = 4;

/** A cell's verdict: a scenario verdict all its runs agree on, or flaky when they do not. */
export const CELL_VERDICTS = [...SCENARIO_VERDICTS, 'flaky'] as const;
export type CellVerdict = (typeof CELL_VERDICTS)[number];

const text = () => z.string().min(1);
const utc = () => z.iso.datetime();

/** One invariant a cell broke, with the first line of its evidence. */
export const BrokenSchema = z.strictObject({ id: z.enum(INVARIANT_IDS), evidence: z.string() });

/** One scenario on one queue. */
export const CellSchema = z.strictObject({
  scenario: text(),
  queue: text(),
  verdict: z
    .enum(CELL_VERDICTS)
    .describe(
      "the judged runs' verdict when they agree; flaky when they do not (each run's is in `runs`); " +
        'a run the machine starved (inconclusive) is not counted, and the cell is inconclusive only when every run was',
    ),
  broken: z.array(BrokenSchema).describe('each invariant that broke (in the first run that did not pass), with one line of its evidence'),
  why: z
    .string()
    .nullable()
    .describe(
      'one line saying why the cell did not pass (a broken invariant, a job that ended wrong, an unfired fault, ' +
        'the reason it was not judged, the error); null when it passed',
    ),
  notJudged: z
    .array(z.strictObject({ id: z.enum(INVARIANT_IDS), reason: z.string() }))
    .describe('each invariant a run could not judge on this queue, with the reason: what a pass did not check'),
  checks: z.array(z.enum(INVARIANT_IDS)).describe('the invariants the scenario exists to check (one not judged: the cell is not judged)'),
  recoveryMs: z
    .number()
    .min(0)
    .nullable()
    .describe(
      'from the fault (a kill) to the job done or settled again, the longest of the scenario; null when nothing was killed or nothing settled',
    ),
  durationMs: z.number().min(0),
  runs: z
    .array(z.strictObject({ seed: z.int(), verdict: z.enum(SCENARIO_VERDICTS), why: z.string().nullable(), runDir: z.string() }))
    .describe('every run of the scenario on this queue, one per --repeat, with its seed and verdict'),
  expected: z.array(z.enum(CELL_VERDICTS)).describe('the verdicts the command was asked to expect of this cell'),
  matched: z.boolean().describe('whether the verdict is one of those expected'),
  runDir: z
    .string()
    .nullable()
    .describe('the run directory of the run that says most (the first that did not pass), with its report and logs; null when the column never ran'),
});

/** One queue: what it is, where it ran, what it cost, and why it could not run if it could not. */
export const ColumnSchema = z.strictObject({
  queue: text(),
  version: z.string().nullable(),
  description: z.string(),
  needs: z.array(z.string()).describe('the servers the queue needs, each with where it was looked for'),
  settings: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .describe("the queue's own options its adapter set, from the first scenario it ran"),
  options: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .describe("the queue's own options as its users set them (--queue-option, queue_options; defaults filled in), from the first scenario it ran"),
  error: z.string().nullable().describe('why this column could not run (a server that cannot be reached), or null'),
  durationMs: z.number().min(0),
  report: z.string().nullable().describe("the column's drill report (report.json), or null"),
  summary: ReportSummarySchema.nullable(),
});

/** The whole comparison. */
export const CompareReportSchema = z
  .strictObject({
    version: z.literal(COMPARE_VERSION),
    tool: z.literal('queue-drill'),
    toolVersion: text(),
    command: text(),
    file: text(),
    seed: z.int(),
    timeScale: z.number().positive().describe('every duration of every scenario was multiplied by this, for every queue'),
    repeat: z.int().min(1).describe('how many times each cell ran, each run with the next seed (seed, seed + 1, ...)'),
    startedAt: utc(),
    finishedAt: utc(),
    durationMs: z.number().min(0),
    exitCode: z.literal([0, 1, 2, 3]),
    scenarios: z.array(text()),
    queues: z.array(ColumnSchema),
    cells: z.array(CellSchema),
  })
  .meta({
    title: 'queue-drill comparison',
    description: `Version ${COMPARE_VERSION} of compare.json: the same scenarios and seed against several queues, one cell per scenario × queue.`,
  });

export type CompareReport = z.infer<typeof CompareReportSchema>;
export type Cell = z.infer<typeof CellSchema>;
export type Column = z.infer<typeof ColumnSchema>;
