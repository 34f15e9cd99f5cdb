import { z } from 'zod';
import type { ActionField } from '../faults/action.js';
import { FAULT_ACTION_NAMES, POINT_FAULT_ACTIONS } from '../faults/actions/index.js';
import { FAILPOINTS, INJECTED_ERROR_KINDS } from '../faults/points.js';
import { collectFields, type WithFields } from '../kernel/action-fields.js';
import { EXPECTED_STATUSES, INVARIANT_IDS } from '../kernel/vocabulary.js';
import { PlanInputSchema } from '../saga/plan-input.js';
import { TOOL_NAMES } from '../world/catalogue.js';
import type { WorldActionField } from '../world/fault-actions/action.js';
import { WORLD_FAIL_STATUSES, WORLD_FAULT_ACTION_NAMES, WORLD_FAULT_ACTIONS } from '../world/fault-actions/index.js';
import { crossFileIssues } from './cross-checks.js';
import { MAX_JOB_COUNT } from './file-limits.js';
import { PLAN_LIBRARY } from './plan-library.js';

/*
 * scenarios.yaml, as data. One schema is the source of the types, of the
 * validation (every problem reported with its path, and its line by the
 * loader), and of the JSON Schema editors use. `defaults` are merged into each
 * scenario, so a resolved scenario has every value set.
 */

const positiveInt = z.int().min(1);
const ms = z.int().min(0).max(600_000);

const ExpectSchema = z.union([
  z.enum(EXPECTED_STATUSES),
  z.strictObject({
    status: z.enum(EXPECTED_STATUSES),
    /** A regular expression the review reason must match. */
    reason: z.string().min(1).optional(),
  }),
]);

/** A group of identical jobs: a plan (by name or inline), how many, and how each must end. */
const JobGroupSchema = z.strictObject({
  plan: z
    .union([z.string().min(1), PlanInputSchema])
    .describe(`a plan's name (this file's plans:, else the library's: ${Object.keys(PLAN_LIBRARY).join(', ')}), or a plan written here`),
  count: positiveInt.max(MAX_JOB_COUNT).default(1),
  max_attempts: positiveInt.max(100).optional(),
  expect: ExpectSchema,
  /** A secret planted in the first step's args (as `api_key`): no artefact may show it. */
  secret: z.string().min(8).optional(),
});

const WhereSchema = z.strictObject({
  worker: z.string().min(1).optional(),
  attempt: positiveInt.optional(),
  step: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  /** Only this job: 1-based among the scenario's jobs, as a world fault counts them. */
  job: positiveInt.optional(),
});

/** What each kind of action field holds, as the scenario file writes it. */
const FIELD_SCHEMAS: Record<ActionField['kind'] | WorldActionField['kind'], z.ZodType> = {
  ms,
  'exit-code': z.int().min(0).max(255),
  'error-kind': z.enum(INJECTED_ERROR_KINDS),
  text: z.string(),
  boolean: z.boolean(),
  'fail-status': z.literal(WORLD_FAIL_STATUSES),
};

/** The fields a family of actions takes, each optional here and required by its own action in the refinement. */
function fieldsShape(actions: ReadonlyArray<WithFields<keyof typeof FIELD_SCHEMAS>>): Record<string, z.ZodType> {
  return Object.fromEntries(
    [...collectFields(actions)].map(([name, field]) => [
      name,
      FIELD_SCHEMAS[field.kind].optional().describe(`${field.actions.join(', ')}: ${field.describe}`),
    ]),
  );
}

/** A fault at a named point in a worker, coordinator or producer, decided by the harness. */
const PointFaultSchema = z.strictObject({
  at: z.enum(FAILPOINTS),
  action: z.enum(FAULT_ACTION_NAMES).describe(POINT_FAULT_ACTIONS.map((a) => `${a.name}: ${a.summary}`).join('; ')),
  ...fieldsShape(POINT_FAULT_ACTIONS),
  where: WhereSchema.optional(),
  /** Only the first N matching hits; without it, every matching hit (a poison fault). */
  first: positiveInt.optional(),
  /** Fire with this probability, drawn from the drill's seed. */
  probability: z.number().min(0).max(1).optional(),
});

/** A network-side fault the world carries for matching calls. */
const WorldFaultSchema = z.strictObject({
  world: z.strictObject({
    /** The step of a job (job: 1-based among the scenario's jobs, default 1). */
    step: z.string().min(1).optional(),
    job: positiveInt.optional(),
    tool: z.enum(TOOL_NAMES).optional(),
    nth: positiveInt.optional(),
  }),
  action: z.enum(WORLD_FAULT_ACTION_NAMES).describe(WORLD_FAULT_ACTIONS.map((a) => `${a.name}: ${a.summary}`).join('; ')),
  ...fieldsShape(WORLD_FAULT_ACTIONS),
  times: positiveInt.optional(),
});

const FaultSchema = z.union([PointFaultSchema, WorldFaultSchema]);

const WorkerSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{1,32}$/),
  /** Shift this worker's clock: the clock-skew fault. */
  clock_skew_ms: z.int().min(-600_000).max(600_000).default(0),
});

/** Settings every scenario has; `defaults` sets them for all, a scenario for itself. */
export const SettingsSchema = z.strictObject({
  queue: z.string().min(1),
  /** PostgreSQL for queues that need it (a --pg-url flag or QD_PG_URL wins over this). */
  pg_url: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
    .optional(),
  /** Redis for queues that need it (a --redis-url flag or QD_REDIS_URL wins over this). */
  redis_url: z
    .string()
    .regex(/^rediss?:\/\//, 'a redis:// URL')
    .optional(),
  /** RabbitMQ for queues that need it (a --amqp-url flag or QD_AMQP_URL wins over this). */
  amqp_url: z
    .string()
    .regex(/^amqps?:\/\//, 'an amqp:// URL')
    .optional(),
  /** NATS for queues that need it (a --nats-url flag or QD_NATS_URL wins over this). */
  nats_url: z
    .string()
    .regex(/^(nats|tls):\/\//, 'a nats:// URL')
    .optional(),
  lease_ms: z.int().min(50).max(600_000),
  skew_margin_ms: ms,
  call_timeout_ms: z.int().min(50).max(600_000),
  poll_ms: z.int().min(1).max(10_000),
  tick_ms: z.int().min(5).max(10_000),
  /** The drill fails as stuck when nothing changes for this long. */
  no_progress_ms: z.int().min(100).max(600_000),
  timeout_ms: z.int().min(100).max(3_600_000),
  max_attempts: positiveInt.max(100),
  producers: positiveInt.max(16),
  coordinator: z.boolean(),
  /** Jobs waiting for approval are approved by the harness (a recorded human action). */
  approve: z.boolean(),
  retry: z.strictObject({ base_ms: ms, cap_ms: ms, jitter_ms: ms }),
  restart: z.union([z.literal(false), z.strictObject({ after_ms: ms, max: z.int().min(0).max(100) })]),
  /**
   * The producers enqueue every key again, as new producer processes: once a
   * job is running (while_running), or once the drill is at rest with every
   * job done or in review (after_done). A queue must answer with the job it
   * has, not make a second one.
   */
  enqueue_again: z.union([z.literal(false), z.enum(['while_running', 'after_done'])]),
  /**
   * Each queue's own options, as its users would set them, by queue name
   * (`graphile-worker: { job_key_mode: preserve_run_at }`): only the running
   * queue's apply, checked against what its adapter accepts
   * (`queue-drill queues` lists them); a --queue-option flag wins.
   */
  queue_options: z.record(z.string().min(1), z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()]))),
  /**
   * Whether the world refuses a call under an older lease's epoch than one it
   * has seen (on: world-side fencing, the reference design's service) or
   * applies what it is sent (off: a plain service, so a stale holder's effect
   * reaches the ledger). auto: on for the built-in queues, off for the queues
   * people run (BullMQ, pg-boss, graphile-worker), whose workers' services
   * seldom take a fencing token.
   */
  world_fences: z.enum(['auto', 'on', 'off']),
});

export const BUILT_IN_DEFAULTS = {
  queue: 'reference',
  lease_ms: 400,
  skew_margin_ms: 50,
  call_timeout_ms: 1_000,
  poll_ms: 10,
  tick_ms: 25,
  no_progress_ms: 5_000,
  timeout_ms: 30_000,
  max_attempts: 3,
  producers: 1,
  coordinator: true,
  approve: true,
  retry: { base_ms: 20, cap_ms: 200, jitter_ms: 10 },
  restart: { after_ms: 20, max: 10 },
  enqueue_again: false,
  queue_options: {},
  world_fences: 'auto',
} satisfies z.input<typeof SettingsSchema>;

const ScenarioSchema = SettingsSchema.partial().extend({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lowercase letters, digits and dashes'),
  description: z.string().min(1),
  /** The queue sketch's drill list item or checklist item this scenario covers. */
  covers: z.string().optional(),
  workers: z.union([positiveInt.max(32), z.array(WorkerSchema).min(1).max(32)]).default(2),
  jobs: z.array(JobGroupSchema).min(1),
  faults: z.array(FaultSchema).default([]),
  invariants: z.union([z.literal('all'), z.array(z.enum(INVARIANT_IDS)).min(1)]).default('all'),
  /**
   * The invariants this scenario exists to check: a run where one of them
   * could not be judged (the queue cannot give its evidence) is "not judged",
   * never a pass, whatever else held.
   */
  checks: z.array(z.enum(INVARIANT_IDS)).default([]),
});

/** The file's shape alone: each part checked by itself, nothing about how its parts refer to each other. */
export const ScenarioFileShape = z.strictObject({
  version: z.literal(1),
  defaults: SettingsSchema.partial().default({}),
  plans: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/), PlanInputSchema)
    .describe(`plans by name, for this file's jobs; the library's need no declaring: ${Object.keys(PLAN_LIBRARY).join(', ')}`)
    .default({}),
  scenarios: z.array(ScenarioSchema).min(1),
});

/** The whole file: its shape, then its references (cross-checks.ts). The loader runs the two side by side, to report every problem at once. */
export const ScenarioFileSchema = ScenarioFileShape.superRefine((file, ctx) => {
  for (const issue of crossFileIssues(file)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
});

export type ScenarioFile = z.infer<typeof ScenarioFileSchema>;
export type ScenarioInput = z.infer<typeof ScenarioSchema>;
export type PointFault = z.infer<typeof PointFaultSchema>;
export type WorldFault = z.infer<typeof WorldFaultSchema>;
export type Settings = z.infer<typeof SettingsSchema>;
export type JobGroup = z.infer<typeof JobGroupSchema>;
