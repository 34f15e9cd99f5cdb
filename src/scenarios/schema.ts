import * as z from 'zod';
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

/*
 * Every field carries a description (`.describe`): it is what an editor shows
 * on hover from scenarios.schema.json, and what the field table of
 * docs/scenarios.md is generated from, so each says what the field means, its
 * unit, its default and the values allowed. A test counts the fields without one.
 */

/** The expectation's statuses, each in a few words (the judge's reading: src/judge/invariants/index.ts expectationMismatch). */
const STATUS_MEANINGS: Readonly<Record<(typeof EXPECTED_STATUSES)[number], string>> = {
  done: 'done',
  review: 'in review for a person (failed, blocked by policy, or awaiting approval)',
  compensated: 'in review with its saga undone',
  compensation_failed: 'in review with a compensation that failed (manual recovery)',
  any: 'done or review, whichever (only the invariants judge it)',
};
const STATUSES_IN_WORDS = EXPECTED_STATUSES.map((status) => `${status}: ${STATUS_MEANINGS[status]}`).join('; ');

const ExpectSchema = z
  .union([
    z.enum(EXPECTED_STATUSES),
    z.strictObject({
      status: z.enum(EXPECTED_STATUSES).describe(`How each job of the group must end. ${STATUSES_IN_WORDS}. Required.`),
      reason: z
        .string()
        .min(1)
        .optional()
        .describe(
          "A regular expression (JavaScript syntax, unanchored) the job's review reason must match, or for a job that ended done its last error. " +
            'Optional: without it, any reason.',
        ),
    }),
  ])
  .describe(
    'How each job of the group must end: a status alone (`expect: done`), or `{ status, reason }` to check the review reason too. ' +
      `${STATUSES_IN_WORDS}. Required.`,
  );

/** A group of identical jobs: a plan (by name or inline), how many, and how each must end. */
const JobGroupSchema = z.strictObject({
  plan: z
    .union([z.string().min(1), PlanInputSchema])
    .describe(
      `The plan each job of the group runs: a plan's name (this file's plans:, else the library's: ${Object.keys(PLAN_LIBRARY).join(', ')}), ` +
        'or a plan written here (`{ steps: [...] }`). Required.',
    ),
  count: positiveInt
    .max(MAX_JOB_COUNT)
    .default(1)
    .describe(`How many jobs of this plan the producers enqueue, each under its own idempotency key: 1 to ${MAX_JOB_COUNT}. Default 1.`),
  max_attempts: positiveInt
    .max(100)
    .optional()
    .describe("These jobs' attempt budget, instead of the scenario's max_attempts: 1 to 100. Default: the scenario's max_attempts."),
  expect: ExpectSchema,
  secret: z
    .string()
    .min(8)
    .optional()
    .describe(
      "A secret planted in the first step's args (as `api_key`), at least 8 characters: no artefact of the run may show it (secrets-redacted). " +
        'Default: none planted.',
    ),
});

const WhereSchema = z
  .strictObject({
    worker: z
      .string()
      .min(1)
      .optional()
      .describe('Only in this worker: its id (w1, w2, … for `workers: N`, else the ids under workers). Default: any worker.'),
    attempt: positiveInt.optional().describe("Only during this attempt of a job (1-based: 1 is a job's first run). Default: any attempt."),
    step: z
      .string()
      .min(1)
      .optional()
      .describe("Only at this step of a job's plan (its step_id), for a point reached once per step (docs/faults.md says which). Default: any step."),
    tool: z.string().min(1).optional().describe('Only at a step that calls this tool (write_file, charge_customer, …). Default: any tool.'),
    job: positiveInt
      .optional()
      .describe(
        "Only this job: 1-based among the scenario's jobs in the order listed, each job of a group counted (as a world fault counts them). Default: any job.",
      ),
  })
  .describe('Which hits of the point the fault applies to: every field given must hold. Default: every hit, in any process.');
/** What each kind of action field holds, as the scenario file writes it. */
const FIELD_SCHEMAS: Record<ActionField['kind'] | WorldActionField['kind'], z.ZodType> = {
  ms,
  'exit-code': z.int().min(0).max(255),
  'error-kind': z.enum(INJECTED_ERROR_KINDS),
  text: z.string(),
  boolean: z.boolean(),
  'fail-status': z.literal(WORLD_FAIL_STATUSES),
};

/** What each kind of action field holds, in words, as FIELD_SCHEMAS checks it (the action's own text says what it means). */
const FIELD_WORDS: Record<keyof typeof FIELD_SCHEMAS, string> = {
  ms: 'In milliseconds, 0 to 600000.',
  'exit-code': 'An exit code, 0 to 255.',
  'error-kind': `One of: ${INJECTED_ERROR_KINDS.join(', ')}.`,
  text: 'Text.',
  boolean: 'true or false.',
  'fail-status': `One of: ${WORLD_FAIL_STATUSES.join(', ')}.`,
};

/** The fields a family of actions takes, each optional here and required by its own action in the refinement. */
function fieldsShape(actions: ReadonlyArray<WithFields<keyof typeof FIELD_SCHEMAS>>): Record<string, z.ZodType> {
  return Object.fromEntries(
    [...collectFields(actions)].map(([name, field]) => [
      name,
      FIELD_SCHEMAS[field.kind]
        .optional()
        .describe(
          `${field.actions.join(', ')}: ${field.describe}. ${FIELD_WORDS[field.kind]} Only for ${field.actions.join(', ')} (docs/faults.md).`,
        ),
    ]),
  );
}

/** A fault at a named point in a worker, coordinator or producer, decided by the harness. */
const PointFaultSchema = z.strictObject({
  at: z
    .enum(FAILPOINTS)
    .describe(
      `The point in a process where the fault fires, one of: ${FAILPOINTS.join(', ')} (docs/faults.md says who passes each, and where). Required.`,
    ),
  action: z
    .enum(FAULT_ACTION_NAMES)
    .describe(`What happens there. ${POINT_FAULT_ACTIONS.map((a) => `${a.name}: ${a.summary}`).join('; ')}. Required.`),
  ...fieldsShape(POINT_FAULT_ACTIONS),
  where: WhereSchema.optional(),
  first: positiveInt
    .optional()
    .describe('Only the first N hits that match `where` can fire (N from 1). Default: every matching hit, a poison fault.'),
  probability: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("Fire each matching hit with this chance, 0 to 1, drawn from the drill's seed (a rerun with the seed repeats it). Default: always."),
});

/** A network-side fault the world carries for matching calls. */
const WorldFaultSchema = z.strictObject({
  world: z
    .strictObject({
      step: z.string().min(1).optional().describe("Calls made for this step (its step_id) of job `job` of the scenario. Default: any step's calls."),
      job: positiveInt
        .optional()
        .describe("The job whose step `step` names: 1-based among the scenario's jobs in the order listed, each job of a group counted. Default 1."),
      tool: z
        .enum(TOOL_NAMES)
        .optional()
        .describe(`Calls of this tool, one of: ${TOOL_NAMES.join(', ')}. Default: any tool.`),
      nth: positiveInt
        .optional()
        .describe("Only the world's nth call of the drill (1-based, counting every call it received, refused ones too). Default: any call."),
    })
    .describe('Which calls to the world the fault hits: every field given must hold (`{}` hits any call). Required: it marks a world fault.'),
  action: z
    .enum(WORLD_FAULT_ACTION_NAMES)
    .describe(`What the world does to a matching call. ${WORLD_FAULT_ACTIONS.map((a) => `${a.name}: ${a.summary}`).join('; ')}. Required.`),
  ...fieldsShape(WORLD_FAULT_ACTIONS),
  times: positiveInt.optional().describe('How many matching calls it hits, from 1; later calls go through. Default 1.'),
});

const FaultSchema = z.union([PointFaultSchema, WorldFaultSchema]);

const WorkerSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9-]{1,32}$/)
    .describe("The worker's name: 1 to 32 lowercase letters, digits and dashes, unique in the scenario; `where.worker` names it. Required."),
  clock_skew_ms: z
    .int()
    .min(-600_000)
    .max(600_000)
    .default(0)
    .describe("Shift this worker's clock by this many milliseconds (negative: behind), -600000 to 600000: the clock-skew fault. Default 0."),
});

/** The description of a duration setting: what it is, then its unit, range and built-in default, as the schema checks them. */
function duration(what: string, min: number, max: number, fallback: number): string {
  return `${what} In milliseconds, ${min} to ${max}. Default ${fallback}.`;
}

/** Settings every scenario has; `defaults` sets them for all, a scenario for itself. */
export const SettingsSchema = z.strictObject({
  queue: z
    .string()
    .min(1)
    .describe(
      "The queue the drill runs against: a queue's name (`queue-drill queues` lists them; `sqlite` is another name of `reference`), " +
        'or `process:CMD ARGS` for a queue behind the process protocol (docs/protocol.md). A --queue flag wins. Default reference.',
    ),
  pg_url: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// URL')
    .optional()
    .describe('PostgreSQL for queues that need it, a postgres:// or postgresql:// URL (a --pg-url flag or QD_PG_URL wins over this). Default: none.'),
  redis_url: z
    .string()
    .regex(/^rediss?:\/\//, 'a redis:// URL')
    .optional()
    .describe('Redis for queues that need it, a redis:// or rediss:// URL (a --redis-url flag or QD_REDIS_URL wins over this). Default: none.'),
  amqp_url: z
    .string()
    .regex(/^amqps?:\/\//, 'an amqp:// URL')
    .optional()
    .describe('RabbitMQ for queues that need it, an amqp:// or amqps:// URL (a --amqp-url flag or QD_AMQP_URL wins over this). Default: none.'),
  nats_url: z
    .string()
    .regex(/^(nats|tls):\/\//, 'a nats:// URL')
    .optional()
    .describe('NATS for queues that need it, a nats:// or tls:// URL (a --nats-url flag or QD_NATS_URL wins over this). Default: none.'),
  lease_ms: z
    .int()
    .min(50)
    .max(600_000)
    .describe(
      duration(
        'How long a claim or a renewal holds a job: a holder that neither finishes nor renews by then may lose it to another.',
        50,
        600_000,
        400,
      ),
    ),
  skew_margin_ms: ms.describe(duration('A lease counts as expired only this long after its end, to absorb the skew between clocks.', 0, 600_000, 50)),
  call_timeout_ms: z
    .int()
    .min(50)
    .max(600_000)
    .describe(
      duration("How long a worker waits for the world's answer to one call; without an answer by then, its outcome is unknown.", 50, 600_000, 1000),
    ),
  poll_ms: z
    .int()
    .min(1)
    .max(10_000)
    .describe(duration('How often an idle worker looks for work.', 1, 10_000, 10)),
  tick_ms: z
    .int()
    .min(5)
    .max(10_000)
    .describe(
      duration(
        'How often the coordinator sweeps expired leases and looks for sagas to compensate; ' +
          'the drill ends at rest once nothing has moved for 2 ticks (and at least 3 polls and 100 ms).',
        5,
        10_000,
        25,
      ),
    ),
  no_progress_ms: z
    .int()
    .min(100)
    .max(600_000)
    .describe(
      duration('The drill ends as stuck (the watchdog) when nothing in the queue or on its timeline changes for this long.', 100, 600_000, 5000),
    ),
  timeout_ms: z
    .int()
    .min(100)
    .max(3_600_000)
    .describe(
      duration(
        "The longest the drill may run, counted from the producers' start: then it is stopped and judged as it stands " +
          '(a job not yet ended misses its expectation).',
        100,
        3_600_000,
        30_000,
      ),
    ),
  max_attempts: positiveInt
    .max(100)
    .describe(
      "Each job's attempt budget: after its last attempt fails, the job goes to review. 1 to 100; a job group's max_attempts wins. Default 3.",
    ),
  producers: positiveInt
    .max(16)
    .describe(
      'How many producer processes enqueue the jobs: each enqueues every key, all let go at once, so they race on each key. 1 to 16. Default 1.',
    ),
  coordinator: z
    .boolean()
    .describe(
      'Whether the drill runs the coordinator process: every tick_ms it sweeps expired leases (reconciling what a dead holder left in doubt) ' +
        "and compensates sagas. false: no coordinator, so the queue must take a dead holder's job back itself. Default true.",
    ),
  approve: z
    .boolean()
    .describe(
      'Whether the drill approves a step that requires approval (charge_customer) itself, as a recorded human action (`approved by drill` on the timeline); ' +
        "the run it resumes does not count against the job's max_attempts. false: such a job stays in review, awaiting approval. Default true.",
    ),
  retry: z
    .strictObject({
      base_ms: ms.describe(duration('The wait after the first failed attempt; it doubles with each attempt after.', 0, 600_000, 20)),
      cap_ms: ms.describe(duration('The doubling stops at this wait.', 0, 600_000, 200)),
      jitter_ms: ms.describe(duration('Up to this much is added to each wait at random, so failed jobs do not retry in lockstep.', 0, 600_000, 10)),
    })
    .describe(
      'How long a failed job waits before its next attempt: base_ms, doubling each attempt up to cap_ms, plus up to jitter_ms; ' +
        'all three are required when given. Default { base_ms: 20, cap_ms: 200, jitter_ms: 10 }.',
    ),
  restart: z
    .union([
      z.literal(false),
      z.strictObject({
        after_ms: ms.describe(duration('How long after a process exits it is started again.', 0, 600_000, 20)),
        max: z.int().min(0).max(100).describe('How many times each process may be restarted, 0 to 100. Default 10.'),
      }),
    ])
    .describe(
      'Whether the harness starts again a process of the drill that exited (a crash fault, a worker that died; not a producer that finished): ' +
        '`{ after_ms, max }`, or false to leave it dead. Default { after_ms: 20, max: 10 }.',
    ),
  enqueue_again: z
    .union([z.literal(false), z.enum(['while_running', 'after_done'])])
    .describe(
      'The producers enqueue every key again, as new producer processes: while_running, once a job is running; after_done, once the drill is at rest ' +
        'with every job done or in review. A queue must answer with the job it has, not make a second one. false: enqueue once. Default false.',
    ),
  queue_options: z
    .record(z.string().min(1), z.record(z.string().min(1), z.union([z.string(), z.number(), z.boolean()])))
    .describe(
      "Each queue's own options, as its users would set them, by queue name (`graphile-worker: { job_key_mode: preserve_run_at }`), " +
        "each a string, number or boolean: only the running queue's apply, checked against what its adapter accepts " +
        '(`queue-drill queues` lists them); a --queue-option flag wins. Default {}.',
    ),
  world_fences: z
    .enum(['auto', 'on', 'off'])
    .describe(
      "Whether the world refuses a call under an older lease's epoch than one it has seen. on: world-side fencing, the reference design's service; " +
        "off: a plain service that applies what it is sent, so a stale holder's effect reaches the ledger; " +
        'auto: on for the built-in queues, off for the queues people run (BullMQ, pg-boss, graphile-worker), whose services seldom take a fencing token. ' +
        'Default auto.',
    ),
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
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'lowercase letters, digits and dashes')
    .describe(
      "The scenario's name, unique in the file: 1 to 64 lowercase letters, digits and dashes, not starting with a dash; --only picks it. Required.",
    ),
  description: z.string().min(1).describe('What the scenario does and what must hold, in a sentence or two for the report (not empty). Required.'),
  covers: z
    .string()
    .optional()
    .describe("The queue sketch's drill list item or checklist item this scenario covers, as free text for the report. Default: none."),
  workers: z
    .union([positiveInt.max(32), z.array(WorkerSchema).min(1).max(32)])
    .default(2)
    .describe('The worker processes: how many (1 to 32, named w1, w2, …), or a list of 1 to 32 workers, each with its id and clock skew. Default 2.'),
  jobs: z
    .array(JobGroupSchema)
    .min(1)
    .describe(
      'The jobs the producers enqueue: a list of groups of identical jobs, each a plan, a count and how each must end. At least one; required.',
    ),
  faults: z
    .array(FaultSchema)
    .default([])
    .describe(
      'The faults armed for the run: at a named point in a process (`at:`), or in the world on matching calls (`world:`); docs/faults.md lists every action. ' +
        'A fault that never fires makes the run vacuous, not a pass. Default: none.',
    ),
  invariants: z
    .union([z.literal('all'), z.array(z.enum(INVARIANT_IDS)).min(1)])
    .default('all')
    .describe(`The invariants that judge the run: all, or a list of at least one of: ${INVARIANT_IDS.join(', ')}. Default all.`),
  checks: z
    .array(z.enum(INVARIANT_IDS))
    .default([])
    .describe(
      'The invariants this scenario exists to check: a run where one of them could not be judged (the queue cannot give its evidence) is "not judged", ' +
        `never a pass, whatever else held. A list of: ${INVARIANT_IDS.join(', ')}. Default: none.`,
    ),
});

/** The file's shape alone: each part checked by itself, nothing about how its parts refer to each other. */
export const ScenarioFileShape = z.strictObject({
  version: z.literal(1).describe('The version of the file format: 1, the only one. Required.'),
  defaults: SettingsSchema.partial()
    .default({})
    .describe("Settings for every scenario of the file; a scenario's own setting wins, and one set nowhere has its built-in default. Default {}."),
  plans: z
    .record(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/), PlanInputSchema)
    .describe(
      "Plans by name (1 to 64 lowercase letters, digits and dashes), for this file's jobs; the library's need no declaring: " +
        `${Object.keys(PLAN_LIBRARY).join(', ')}. Default {}.`,
    )
    .default({}),
  scenarios: z.array(ScenarioSchema).min(1).describe('The drills, run in this order. At least one; required.'),
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
