import { describe, expect, test } from 'vitest';
import { FAULT_ACTION_NAMES } from '../../src/faults/actions/index.js';
import { FAILPOINTS, INJECTED_ERROR_KINDS } from '../../src/faults/points.js';
import { INVARIANT_IDS } from '../../src/judge/evidence.js';
import { RETRY_POLICIES } from '../../src/saga/plan.js';
import { parseScenarioText, ScenarioFileError, type ScenarioIssue } from '../../src/scenarios/load.js';
import { TOOL_NAMES } from '../../src/world/catalogue.js';
import { WORLD_FAULT_ACTION_NAMES } from '../../src/world/fault-actions/index.js';

/*
 * One row per kind of mistake. The YAML marks the line each problem must be
 * reported on with a comment, `#@name`, so the expected lines are read from
 * the text and stay right when a case is edited. Every row lists ALL the
 * problems its file has: an extra or a missing one fails the row.
 */

/** Strips the indentation the text has in this file, so cases can be written in place. */
function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const text = String.raw({ raw: strings }, ...values).replace(/^\n/, '');
  const indent = Math.min(
    ...text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.length - line.trimStart().length),
  );
  return text
    .split('\n')
    .map((line) => line.slice(indent))
    .join('\n');
}

/** A plan named `one`, for the cases that need a valid plan to refer to. */
const PLANS = yaml`
  plans:
    one:
      steps:
        - step_id: write
          tool: write_file
          has_side_effect: true
          idempotent: true
          reversible: false
          retry_policy: auto
          compensation: null
          requires_approval: false
`;

/** A valid file with `scenario` (lines of the first scenario's mapping, at its indentation) as its only scenario. */
function withScenario(scenario: string): string {
  const body = scenario
    .replace(/^\n/, '')
    .split('\n')
    .map((line, index) => (index === 0 ? `  - ${line}` : `    ${line}`))
    .join('\n');
  return `version: 1\n${PLANS}scenarios:\n${body}\n`;
}

/** A minimal valid scenario body, to append keys to. */
const BASIC = yaml`
  name: basic
  description: d
  jobs:
    - plan: one
      expect: done
`.trimEnd();

interface Expected {
  path: string;
  /** The marker (`#@at`) on the line the problem must be reported on. */
  at: string;
  /** Text the message must contain. */
  says: string;
  /** Expected column, where the case pins it. */
  column?: number;
}

interface Case {
  name: string;
  text: string;
  issues: Expected[];
}

const allowed = (values: readonly unknown[]): string => `allowed: ${values.join(', ')}`;
const SETTINGS_KEYS =
  'queue, pg_url, redis_url, amqp_url, nats_url, lease_ms, skew_margin_ms, call_timeout_ms, poll_ms, tick_ms, no_progress_ms, timeout_ms, max_attempts, producers, coordinator, approve, retry, restart, enqueue_again, queue_options, world_fences';
const POINT_FAULT_KEYS = 'at, action, code, ms, until, kind, message, jitter_ms, for_ms, write, command, within, where, first, probability';

const CASES: Case[] = [
  {
    name: 'an adapter module named in the file: a path belongs on the command line',
    text: withScenario(`${BASIC}\nqueue: adapter:./mine.js #@queue`),
    issues: [{ path: 'scenarios[0].queue', at: 'queue', says: 'an adapter module is named on the command line (--adapter PATH)' }],
  },
  // YAML itself
  {
    name: 'YAML syntax error: an unquoted colon in a value',
    text: withScenario(`${BASIC}\ncovers: crash: after claim #@err`),
    issues: [
      {
        path: 'scenarios[0].covers',
        at: 'err',
        says: 'a value cannot be `key: value` on the same line: quote the text, or put the mapping on lines of its own, indented',
      },
    ],
  },
  {
    name: 'YAML syntax error: an unclosed flow list, found on the next line, is reported where it opens',
    text: withScenario(`${BASIC}\ninvariants: [no-lost-job, single-holder #@err\nworkers: 3`),
    issues: [
      {
        path: 'scenarios[0].invariants',
        at: 'err',
        says: 'this [ is never closed: add the ] before the line ends (or continue it on lines indented further)',
      },
    ],
  },
  {
    name: 'YAML syntax error: an unclosed flow mapping is reported where it opens',
    text: withScenario(`${BASIC}\nretry: { base_ms: 20 #@err\nworkers: 3`),
    issues: [
      {
        path: 'scenarios[0].retry',
        at: 'err',
        says: 'this { is never closed: add the } before the line ends (or continue it on lines indented further)',
      },
    ],
  },
  {
    name: 'YAML syntax error: an unclosed quote is reported where it opens',
    text: withScenario(`${BASIC}\ncovers: 'no end #@err\nworkers: 3`),
    issues: [{ path: 'scenarios[0].covers', at: 'err', says: 'this quoted text is never closed: add the closing quote' }],
  },
  {
    name: 'duplicate key',
    text: withScenario(`${BASIC}\ndescription: again #@dup`),
    issues: [
      { path: 'scenarios[0].description', at: 'dup', says: 'duplicate key "description": already set above in this mapping; keep one', column: 5 },
    ],
  },
  {
    name: 'an unknown tag (a YAML warning) is refused too',
    text: withScenario(`${BASIC}\nlease_ms: !ms 300 #@tag`),
    issues: [{ path: 'scenarios[0].lease_ms', at: 'tag', says: 'Unresolved tag: !ms' }],
  },
  {
    name: 'an alias to no anchor',
    text: withScenario(`${BASIC}\nworkers: *pool #@alias`),
    issues: [{ path: 'scenarios[0].workers', at: 'alias', says: 'Unresolved alias' }],
  },

  // The file's top level
  {
    name: 'wrong version',
    text: withScenario(BASIC).replace('version: 1', 'version: 2 #@v'),
    issues: [{ path: 'version', at: 'v', says: 'invalid value 2; allowed: 1', column: 1 }],
  },
  {
    name: 'missing version: reported at the top-level mapping',
    text: `# a comment first, so the mapping starts on line 2\n${withScenario(BASIC).replace('version: 1\n', '')}`.replace('plans:', 'plans: #@root'),
    issues: [{ path: 'version', at: 'root', says: 'required key is missing; allowed: 1' }],
  },
  {
    name: 'a plan name that is not lowercase-with-dashes',
    text: withScenario(BASIC).replace('plans:\n', 'plans:\n  One_Plan: #@key\n    steps: []\n'),
    issues: [{ path: 'plans.One_Plan', at: 'key', says: 'invalid key "One_Plan"' }],
  },

  // Unknown keys, at every depth: each at its own line, with the keys allowed there
  {
    name: 'unknown key at the top level',
    text: `${withScenario(BASIC)}scenario_defaults: {} #@k\n`,
    issues: [
      { path: 'scenario_defaults', at: 'k', says: 'unknown key "scenario_defaults"; allowed: version, defaults, plans, scenarios', column: 1 },
    ],
  },
  {
    name: 'unknown key in defaults',
    text: withScenario(BASIC).replace('plans:', 'defaults:\n  leese_ms: 300 #@k\nplans:'),
    issues: [{ path: 'defaults.leese_ms', at: 'k', says: `unknown key "leese_ms"; allowed: ${SETTINGS_KEYS}`, column: 3 }],
  },
  {
    name: 'unknown key in a scenario',
    text: withScenario(`${BASIC}\nfault: [] #@k`),
    issues: [
      {
        path: 'scenarios[0].fault',
        at: 'k',
        says: `unknown key "fault"; allowed: ${SETTINGS_KEYS}, name, description, covers, workers, jobs, faults, invariants, checks`,
      },
    ],
  },
  {
    name: 'a check among no invariant the scenario runs',
    text: withScenario(`${BASIC}\ninvariants: [no-lost-job]\nchecks:\n  - single-holder #@k`),
    issues: [{ path: 'scenarios[0].checks[0]', at: 'k', says: 'single-holder is not among the invariants this scenario runs (no-lost-job)' }],
  },
  {
    name: 'unknown key in a point fault',
    text: withScenario(`${BASIC}\nfaults:\n  - at: after_claim\n    action: crash\n    were: { worker: w1 } #@k`),
    issues: [{ path: 'scenarios[0].faults[0].were', at: 'k', says: `unknown key "were"; allowed: ${POINT_FAULT_KEYS}`, column: 9 }],
  },
  {
    name: "unknown key in a point fault's where",
    text: withScenario(`${BASIC}\nfaults:\n  - at: after_claim\n    action: crash\n    where:\n      workr: w1 #@k`),
    issues: [{ path: 'scenarios[0].faults[0].where.workr', at: 'k', says: 'unknown key "workr"; allowed: worker, attempt, step, tool', column: 11 }],
  },
  {
    name: "unknown key in a world fault's world",
    text: withScenario(`${BASIC}\nfaults:\n  - world: { step: write, nht: 2 } #@k\n    action: drop`),
    issues: [{ path: 'scenarios[0].faults[0].world.nht', at: 'k', says: 'unknown key "nht"; allowed: step, job, tool, nth' }],
  },
  {
    name: 'unknown key in a plan step',
    text: withScenario(BASIC).replace('        requires_approval: false\n', '        requires_approval: false\n        retries: 3 #@k\n'),
    issues: [
      {
        path: 'plans.one.steps[0].retries',
        at: 'k',
        says: 'unknown key "retries"; allowed: step_id, tool, args, has_side_effect, idempotent, reversible, retry_policy, compensation, requires_approval',
        column: 9,
      },
    ],
  },
  {
    name: 'unknown key in an expectation, beside the key it replaced',
    text: withScenario(BASIC.replace('expect: done', 'expect: { state: done } #@k')),
    issues: [
      { path: 'scenarios[0].jobs[0].expect.state', at: 'k', says: 'unknown key "state"; allowed: status, reason' },
      {
        path: 'scenarios[0].jobs[0].expect.status',
        at: 'k',
        says: 'required key is missing; allowed: done, review, compensated, compensation_failed',
      },
    ],
  },

  // Values outside their set: the message lists the set
  {
    name: 'invalid fault action',
    text: withScenario(`${BASIC}\nfaults:\n  - at: after_claim\n    action: crsh #@v`),
    issues: [{ path: 'scenarios[0].faults[0].action', at: 'v', says: `invalid value "crsh"; allowed: ${FAULT_ACTION_NAMES.join(', ')}` }],
  },
  {
    name: 'invalid fault point',
    text: withScenario(`${BASIC}\nfaults:\n  - at: after_clam #@v\n    action: crash`),
    issues: [{ path: 'scenarios[0].faults[0].at', at: 'v', says: `invalid value "after_clam"; ${allowed(FAILPOINTS)}` }],
  },
  {
    name: 'invalid injected error kind',
    text: withScenario(`${BASIC}\nfaults:\n  - at: after_write\n    action: error\n    kind: flaky #@v`),
    issues: [{ path: 'scenarios[0].faults[0].kind', at: 'v', says: `invalid value "flaky"; ${allowed(INJECTED_ERROR_KINDS)}` }],
  },
  {
    name: 'invalid world action (the fault is recognised as a world fault by its keys)',
    text: withScenario(`${BASIC}\nfaults:\n  - world: { step: write }\n    action: crash #@v`),
    issues: [{ path: 'scenarios[0].faults[0].action', at: 'v', says: `invalid value "crash"; allowed: ${WORLD_FAULT_ACTION_NAMES.join(', ')}` }],
  },
  {
    name: 'invalid world tool',
    text: withScenario(`${BASIC}\nfaults:\n  - world:\n      tool: rm_rf #@v\n    action: drop`),
    issues: [{ path: 'scenarios[0].faults[0].world.tool', at: 'v', says: `invalid value "rm_rf"; ${allowed(TOOL_NAMES)}` }],
  },
  {
    name: 'invalid world fail status (a union of literals)',
    text: withScenario(`${BASIC}\nfaults:\n  - world: { step: write }\n    action: fail\n    status: 500 #@v`),
    issues: [{ path: 'scenarios[0].faults[0].status', at: 'v', says: 'invalid value 500; allowed: 503, 429, 401, 403' }],
  },
  {
    name: 'invalid retry policy in a plan step',
    text: withScenario(BASIC).replace('retry_policy: auto', 'retry_policy: always #@v'),
    issues: [{ path: 'plans.one.steps[0].retry_policy', at: 'v', says: `invalid value "always"; ${allowed(RETRY_POLICIES)}` }],
  },
  {
    name: 'invalid expected status, short form',
    text: withScenario(BASIC.replace('expect: done', 'expect: finished #@v')),
    issues: [
      {
        path: 'scenarios[0].jobs[0].expect',
        at: 'v',
        says: 'invalid value "finished"; allowed: done, review, compensated, compensation_failed, any, or a mapping',
      },
    ],
  },
  {
    name: 'invalid expected status, long form',
    text: withScenario(BASIC.replace('expect: done', 'expect:\n      status: finished #@v\n      reason: x')),
    issues: [
      {
        path: 'scenarios[0].jobs[0].expect.status',
        at: 'v',
        says: 'invalid value "finished"; allowed: done, review, compensated, compensation_failed',
      },
    ],
  },
  {
    name: 'bad invariant id',
    text: withScenario(`${BASIC}\ninvariants:\n  - no-lost-job\n  - no-double-effect #@v`),
    issues: [{ path: 'scenarios[0].invariants[1]', at: 'v', says: `invalid value "no-double-effect"; ${allowed(INVARIANT_IDS)}`, column: 9 }],
  },
  {
    name: 'invariants neither "all" nor a list',
    text: withScenario(`${BASIC}\ninvariants: every #@v`),
    issues: [{ path: 'scenarios[0].invariants', at: 'v', says: 'invalid value "every"; allowed: all, or a list' }],
  },

  // Wrong types and out-of-range numbers
  {
    name: 'wrong types',
    text: withScenario(`${BASIC}\nlease_ms: 400ms #@lease\ncoordinator: yes #@coord\nworkers: many #@workers\nrestart: true #@restart`),
    issues: [
      { path: 'scenarios[0].lease_ms', at: 'lease', says: 'expected an integer, got the string "400ms"' },
      { path: 'scenarios[0].coordinator', at: 'coord', says: 'expected true or false, got the string "yes"' },
      { path: 'scenarios[0].workers', at: 'workers', says: 'expected an integer or a list, got the string "many"' },
      { path: 'scenarios[0].restart', at: 'restart', says: 'invalid value true; allowed: false, or a mapping' },
    ],
  },
  {
    name: 'a fraction where an integer is needed, a list where a string is',
    text: withScenario(BASIC.replace('expect: done', 'expect: done\n    count: 1.5 #@count').replace('description: d', 'description: [d] #@desc')),
    issues: [
      { path: 'scenarios[0].description', at: 'desc', says: 'expected a string, got a list' },
      { path: 'scenarios[0].jobs[0].count', at: 'count', says: 'expected an integer, got 1.5' },
    ],
  },
  {
    name: 'numbers out of range, and an empty list',
    text: withScenario(`name: basic\ndescription: d\njobs: [] #@jobs\nlease_ms: 10 #@lease\nproducers: 17 #@producers`),
    issues: [
      { path: 'scenarios[0].jobs', at: 'jobs', says: 'needs at least 1 item, got 0' },
      { path: 'scenarios[0].lease_ms', at: 'lease', says: 'must be at least 50, got 10' },
      { path: 'scenarios[0].producers', at: 'producers', says: 'must be at most 16, got 17' },
    ],
  },
  {
    name: 'a bad scenario name',
    text: withScenario(BASIC.replace('name: basic', 'name: Worker Crash #@name')),
    issues: [{ path: 'scenarios[0].name', at: 'name', says: 'lowercase letters, digits and dashes; got the string "Worker Crash"' }],
  },

  // Missing required fields: reported at the mapping that should hold them
  {
    name: 'missing description and jobs',
    text: withScenario('name: bare #@map'),
    issues: [
      { path: 'scenarios[0].description', at: 'map', says: 'required key is missing; expected a string', column: 5 },
      { path: 'scenarios[0].jobs', at: 'map', says: 'required key is missing; expected a list', column: 5 },
    ],
  },
  {
    name: 'a plan step without its tool',
    text: withScenario(BASIC).replace('      - step_id: write\n', '      - step_id: write #@step\n').replace('        tool: write_file\n', ''),
    issues: [{ path: 'plans.one.steps[0].tool', at: 'step', says: 'required key is missing; expected a string', column: 9 }],
  },
  {
    name: 'a step of a tool the catalogue lacks, not written out in full',
    text: withScenario(BASIC).replace('        tool: write_file\n', '        tool: frobnicate #@tool\n').replace('        idempotent: true\n', ''),
    issues: [
      {
        path: 'plans.one.steps[0].tool',
        at: 'tool',
        says: `no tool "frobnicate" in the world's catalogue, so nothing to take idempotent from; the tools are: ${TOOL_NAMES.join(', ')}`,
      },
    ],
  },
  {
    name: 'missing expectation and fault point',
    text: withScenario(`${BASIC.replace('- plan: one', '- plan: one #@job').replace('\n    expect: done', '')}\nfaults:\n  - action: crash #@fault`),
    issues: [
      {
        path: 'scenarios[0].jobs[0].expect',
        at: 'job',
        says: 'required key is missing; allowed: done, review, compensated, compensation_failed, any, or a mapping',
      },
      { path: 'scenarios[0].faults[0].at', at: 'fault', says: `required key is missing; ${allowed(FAILPOINTS)}` },
    ],
  },

  // The file's cross-field rules
  {
    name: 'unknown plan name',
    text: withScenario(BASIC.replace('plan: one', 'plan: two #@plan')),
    issues: [
      { path: 'scenarios[0].jobs[0].plan', at: 'plan', says: "no plan named two; the plans are this file's: one; the library's: write-file, " },
    ],
  },
  {
    name: 'faults missing their ms, kind or status',
    text: withScenario(
      `${BASIC}\nfaults:\n  - at: before_call #@pause\n    action: pause\n  - at: after_write #@error\n    action: error\n  - world: { step: write } #@fail\n    action: fail\n  - world: { step: write } #@delay\n    action: delay\n    ms: 100`,
    ),
    issues: [
      { path: 'scenarios[0].faults[0].ms', at: 'pause', says: 'pause needs ms' },
      { path: 'scenarios[0].faults[1].kind', at: 'error', says: `error needs kind: one of ${INJECTED_ERROR_KINDS.join(', ')}` },
      { path: 'scenarios[0].faults[2].status', at: 'fail', says: 'a world fail needs status: 503, 429, 401 or 403' },
      { path: 'scenarios[0].faults[3].applied', at: 'delay', says: 'a world delay needs applied' },
    ],
  },
  {
    name: 'a field the fault action does not take',
    text: withScenario(
      `${BASIC}\nfaults:\n  - at: after_claim\n    action: crash\n    ms: 100 #@ms\n  - world: { step: write }\n    action: drop\n    status: 503 #@status`,
    ),
    issues: [
      { path: 'scenarios[0].faults[0].ms', at: 'ms', says: 'crash takes no ms' },
      { path: 'scenarios[0].faults[1].status', at: 'status', says: 'a world drop takes no status' },
    ],
  },
  {
    name: 'duplicate scenario names',
    text: `${withScenario(BASIC)}  - name: basic #@second\n    description: again\n    jobs: [{ plan: one, expect: done }]\n`,
    issues: [{ path: 'scenarios[1].name', at: 'second', says: 'scenario basic is named twice', column: 5 }],
  },
];

/** The 1-based line that carries `#@marker`. */
function lineOf(text: string, marker: string): number {
  const index = text.split('\n').findIndex((line) => new RegExp(`#@${marker}\\b`).test(line));
  if (index < 0) throw new Error(`no #@${marker} in the case's text`);
  return index + 1;
}

function issuesOf(text: string): readonly ScenarioIssue[] {
  try {
    parseScenarioText(text, 'scenarios.yaml');
  } catch (error) {
    if (error instanceof ScenarioFileError) return error.issues;
    throw error;
  }
  throw new Error('the file loaded, but it has mistakes');
}

describe('every kind of mistake is reported with its path, its line and what is allowed', () => {
  test.each(CASES)('$name', ({ text, issues: expected }) => {
    const issues = issuesOf(text);
    const shown = issues.map((i) => `${i.line}:${i.column} ${i.path}: ${i.message}`).join('\n');
    for (const want of expected) {
      const got = issues.find((issue) => issue.path === want.path && issue.message.includes(want.says));
      expect(got, `no issue at ${want.path} saying ${JSON.stringify(want.says)}; got:\n${shown}`).toBeDefined();
      expect(got!.line, `line of ${want.path}`).toBe(lineOf(text, want.at));
      if (want.column !== undefined) expect(got!.column, `column of ${want.path}`).toBe(want.column);
    }
    expect(issues, `exactly the expected problems; got:\n${shown}`).toHaveLength(expected.length);
  });
});

describe('several mistakes at once', () => {
  test('are all reported, in the order of the text', () => {
    const text = yaml`
      version: 1
      defaults:
        poll_ms: 0 #@poll
      ${PLANS.replace(/\n/g, '\n      ')}
      scenarios:
        - name: first
          description: d
          jobs:
            - plan: one
              expect: done
          faults:
            - at: after_claim
              action: crsh #@action
              bogus: 1 #@bogus
        - name: second #@second
          jobs: [{ plan: one, expect: done }]
          invariants: [no-lost-job, nope] #@inv
          lease_ms: slow #@lease
    `;
    const issues = issuesOf(text);
    expect(issues.map((i) => [i.path, i.line])).toEqual([
      ['defaults.poll_ms', lineOf(text, 'poll')],
      ['scenarios[0].faults[0].action', lineOf(text, 'action')],
      ['scenarios[0].faults[0].bogus', lineOf(text, 'bogus')],
      ['scenarios[1].description', lineOf(text, 'second')],
      ['scenarios[1].invariants[1]', lineOf(text, 'inv')],
      ['scenarios[1].lease_ms', lineOf(text, 'lease')],
    ]);
  });

  test("the shape's mistakes and the references' together: an unknown queue, plan, job and step beside a mistyped field", () => {
    const text = yaml`
      version: 1
      defaults:
        queue: rabbit #@queue
      ${PLANS.replace(/\n/g, '\n      ')}
      scenarios:
        - name: first
          description: d
          lease_ms: slow #@lease
          jobs:
            - plan: none #@plan
              expect: done
            - plan: one
              expect: done
          faults:
            - at: after_claim
              action: crash
              where: { job: 3 } #@job
            - world: { job: 2, step: email } #@step
              action: drop
    `;
    const issues = issuesOf(text);
    expect(issues.map((i) => [i.path, i.line])).toEqual([
      ['defaults.queue', lineOf(text, 'queue')],
      ['scenarios[0].lease_ms', lineOf(text, 'lease')],
      ['scenarios[0].jobs[0].plan', lineOf(text, 'plan')],
      ['scenarios[0].faults[0].where.job', lineOf(text, 'job')],
      ['scenarios[0].faults[1].world.step', lineOf(text, 'step')],
    ]);
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringContaining('unknown queue implementation "rabbit"'),
      expect.stringContaining('expected an integer'),
      expect.stringContaining('no plan named none'),
      'no job 3: this scenario has 2 (jobs count from 1)',
      "job 2's plan has no step email; its steps are: write",
    ]);
  });

  // A fault limited to a process or a step the scenario does not have could never fire: bad input at load, not a vacuous run.
  test("a fault's where naming a process or a step the scenario does not have, at its line", () => {
    const text = yaml`
      version: 1
      defaults: { producers: 2 }
      ${PLANS.trim().split('\n').join('\n      ')}
      scenarios:
        - name: a
          description: d
          workers: 2
          coordinator: false
          jobs: [{ plan: one, expect: done }]
          faults:
            - { at: after_claim, action: crash, where: { worker: w5 } } #@w5
            - { at: enqueue, action: crash, where: { worker: p2 } }
            - { at: after_claim, action: crash, where: { worker: coordinator } } #@coordinator
            - { at: after_write, action: crash, where: { step: email } } #@step
            - { at: after_write, action: crash, where: { step: write, worker: w2 } }
    `;
    const issues = issuesOf(text);
    expect(issues.map((i) => [i.path, i.line, i.message])).toEqual([
      ['scenarios[0].faults[0].where.worker', lineOf(text, 'w5'), 'no process w5 in this scenario: it runs w1, w2, p1, p2'],
      ['scenarios[0].faults[2].where.worker', lineOf(text, 'coordinator'), 'no process coordinator in this scenario: it runs w1, w2, p1, p2'],
      ['scenarios[0].faults[3].where.step', lineOf(text, 'step'), "no job's plan has a step email; their steps are: write"],
    ]);
  });

  test('YAML problems are all reported too (and validation waits for them)', () => {
    const text = yaml`
      version: 1
      version: 1 #@first
      scenarios:
        - name: a
          name: b #@second
    `;
    const issues = issuesOf(text);
    expect(issues.map((i) => [i.path, i.line, i.message])).toEqual([
      ['version', lineOf(text, 'first'), expect.stringContaining('duplicate key')],
      ['scenarios[0].name', lineOf(text, 'second'), expect.stringContaining('duplicate key')],
    ]);
  });
});
