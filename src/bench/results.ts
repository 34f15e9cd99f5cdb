import * as z from 'zod';
import { FAILPOINTS } from '../faults/points.js';
import { THROUGHPUT_TARGETS } from './throughput/child-spec.js';

/*
 * bench/results/<UTC>.json, as data: the schema the bench validates what it
 * writes against (a result that does not fit is the bench's bug), and that a
 * reader of kept results can check them with.
 */

/** The version of the results' shape. */
export const RESULTS_VERSION = 1;

/** The families of figures `--only` can choose. */
export const BENCH_FAMILIES = ['throughput', 'recovery', 'drill', 'explore'] as const;

/** One family. */
export type BenchFamily = (typeof BENCH_FAMILIES)[number];

const ms = () => z.number().min(0);
const rate = () => z.number().min(0);

const MachineSchema = z.strictObject({
  cores: z.int().min(1),
  cpuModel: z.string(),
  memoryGb: z.number().min(0),
  os: z.string(),
  node: z.string(),
  libraries: z.record(z.string(), z.string()),
  sqlite: z.string(),
  postgres: z.string().nullable(),
  redis: z.string().nullable(),
  loadAverage: z.tuple([z.number(), z.number(), z.number()]),
});

const ThroughputCellSchema = z.strictObject({
  target: z.enum(THROUGHPUT_TARGETS),
  store: z.enum(['sqlite', 'postgres', 'redis']),
  kind: z.enum(['queue', 'raw']),
  workers: z.int().min(1),
  backlog: z.int().min(1),
  units: z.int().min(0),
  elapsedMs: ms(),
  jobsPerSecond: rate(),
  transactionsPerSecond: rate().nullable(),
  perChild: z.array(z.int().min(0)),
  finished: z.boolean(),
  error: z.string().nullable(),
});

const ComparisonSchema = z.strictObject({
  store: z.enum(['sqlite', 'postgres']),
  workers: z.int().min(1),
  backlog: z.int().min(1),
  queueJobsPerSecond: rate().nullable(),
  rawJobsPerSecond: rate().nullable(),
  ofRaw: z.number().min(0).nullable(),
  bullmqJobsPerSecond: rate().nullable(),
  ofBullmq: z.number().min(0).nullable(),
  // Absent from results written before pg-boss was measured (bench/results keeps some): they are still version 1, and valid.
  pgbossJobsPerSecond: rate().nullable().optional(),
  ofPgboss: z.number().min(0).nullable().optional(),
});

const RecoveryRowSchema = z.strictObject({
  queue: z.enum(['sqlite', 'postgres']),
  stage: z.enum(FAILPOINTS),
  kills: z.int().min(0),
  unrecovered: z.int().min(0),
  reclaimP50Ms: ms().nullable(),
  reclaimP99Ms: ms().nullable(),
  settleP50Ms: ms().nullable(),
  settleP99Ms: ms().nullable(),
  leaseMs: ms(),
  skewMarginMs: ms(),
  boundMs: ms(),
  failedRuns: z.array(z.string()),
});

const BreakdownShape = {
  wallMs: ms(),
  provisionMs: ms(),
  startupMs: ms(),
  faultWaitMs: ms(),
  restartMs: ms(),
  restCheckMs: ms(),
  workMs: ms(),
  stopMs: ms(),
  evidenceMs: ms(),
  teardownMs: ms(),
  judgeMs: ms(),
};

const ExploreRateSchema = z.strictObject({
  queue: z.string(),
  seed: z.int(),
  lanes: z.int().min(1),
  asked: z.int().min(1),
  schedules: z.int().min(0),
  cutOff: z.int().min(0),
  vacuous: z.int().min(0),
  /** Absent from results written before explore counted them. */
  inconclusive: z.int().min(0).optional(),
  violations: z.int().min(0),
  wallMs: ms(),
  schedulesPerSecond: rate(),
  harnessCpuMs: ms(),
  childrenCpuMs: ms().nullable(),
});

const FirstCatchSchema = z.strictObject({
  variant: z.string(),
  expected: z.array(z.string()),
  seed: z.int(),
  lanes: z.int().min(1),
  capSchedules: z.int().min(1),
  capMs: ms(),
  caught: z.boolean(),
  schedules: z.int().min(0),
  elapsedMs: ms(),
  lane: z.int().min(1).nullable(),
  run: z.int().min(1).nullable(),
  invariant: z.string().nullable(),
  broken: z.array(z.string()),
  declared: z.boolean().nullable(),
});

/** The explore family: explore's rate on the reference, and each broken variant's time to its first catch. */
export const ExploreResultsSchema = z.strictObject({ rate: ExploreRateSchema, catches: z.array(FirstCatchSchema), skipped: z.array(z.string()) });

/** A bench run's results file. */
export const BenchResultsSchema = z.strictObject({
  version: z.literal(RESULTS_VERSION),
  tool: z.literal('queue-drill bench'),
  toolVersion: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: ms(),
  size: z.enum(['tiny', 'small', 'full']),
  families: z.array(z.enum(BENCH_FAMILIES)),
  machine: MachineSchema,
  /** One line per part not measured, and why (a server that did not answer). */
  skipped: z.array(z.string()),
  throughput: z
    .strictObject({ cells: z.array(ThroughputCellSchema), comparisons: z.array(ComparisonSchema), skipped: z.array(z.string()) })
    .nullable(),
  recovery: z.strictObject({ rows: z.array(RecoveryRowSchema), skipped: z.array(z.string()) }).nullable(),
  drill: z
    .strictObject({
      wallMs: ms(),
      reportDurationMs: ms(),
      parallel: z.int().min(1),
      /** Why the default chose so many at once (absent from results written before it chose). */
      parallelWhy: z.string().optional(),
      passed: z.int().min(0),
      scenarios: z.array(z.strictObject({ name: z.string(), verdict: z.string(), ...BreakdownShape })),
      totals: z.strictObject(BreakdownShape),
      notRun: z.array(z.string()),
    })
    .nullable(),
  /** Absent from results written before the family was (bench/results keeps some): they are still version 1, and valid. */
  explore: ExploreResultsSchema.nullable().optional(),
  /** The charts written beside this file, by name. */
  charts: z.array(z.string()),
});

/** A bench run's results. */
export type BenchResults = z.infer<typeof BenchResultsSchema>;
