import { describe, expect, it } from 'vitest';
import { INVARIANT_IDS } from '../../src/kernel/vocabulary.js';
import { jobLife } from '../../src/report/job-life.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { type DrillReport, DrillReportSchema, REPORT_VERSION } from '../../src/report/schema.js';
import {
  CALIBRATION,
  drillReport,
  EARLIER_INCONCLUSIVE_LINE,
  EARLIER_RUN_DIR,
  INCONCLUSIVE_LINES,
  INTERRUPTED_LINE,
  INTERRUPTED_NOTE,
  inconclusiveReport,
  interruptedReport,
  NEEDS_HISTORY,
  NO_HISTORY_NOTE,
  NOTHING_JUDGED_LINE,
  nothingJudgedReport,
  notJudgedReport,
  passingReport,
  retriedReport,
  STARVED_SPAN,
} from './fixture.js';

/** How many invariants a scenario is judged by. */
const N = INVARIANT_IDS.length;

/** The cells of a GFM table row: split on pipes not escaped by a backslash. */
function cells(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The rows of the table whose header starts with `first`, header and separator excluded. */
function tableRows(markdown: string, first: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${first} |`));
  if (start < 0) throw new Error(`no table starting with ${first}`);
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(cells(lines[i]!));
  return rows;
}

/** The text of the section under `heading`, up to the next heading of the same or a higher level. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading ${heading}`);
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex((line, i) => i > start && /^#+ /.test(line) && /^#+/.exec(line)![0].length <= level);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The Markdown with code blocks and code spans removed: what GitHub would render as Markdown and HTML. */
function outsideCode(markdown: string): string {
  return markdown.replace(/^( *)(`{3,})[^\n]*\n[\s\S]*?^\1\2$/gm, '').replace(/(?<!`)(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, '');
}

describe('renderMarkdown', () => {
  const report = drillReport();
  const markdown = renderMarkdown(report);

  it('opens with the command, the seed, the queue, the time, a summary line, and where the whole report is', () => {
    const head = markdown.slice(0, markdown.indexOf('| Scenario |'));
    expect(head).toContain('# queue-drill recovery report');
    expect(head).toContain('**❌ 1 of 4 scenarios passed: 1 failed, 1 vacuous, 1 error** (exit code 1)');
    expect(head).toContain('```sh\nqueue-drill drill scenarios.yaml --seed 42 --queue reference\n```');
    expect(head).toMatch(/Queue: `reference` · seed `42` · scenarios file `scenarios\.yaml`\n/);
    expect(head).toContain('Started 2026-08-25T10:00:00.000Z, finished 2026-08-25T10:00:15.735Z (15.7 s)');
    expect(head).toContain(`- queue-drill 0.1.0, report version ${REPORT_VERSION}\n`);
    expect(head).toContain(`- Invariant verdicts: ${3 * N - 2} held, 2 broken, 0 not judged\n`);
    expect(head).toMatch(/- The whole report: \[report\.html\]\(report\.html\), each scenario with its timeline .*\[report\.json\]\(report\.json\)/);
  });

  it('has a table with one row of nine cells per scenario and the facts of each', () => {
    const rows = tableRows(markdown, 'Scenario');
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toHaveLength(9);
    const [pass, fail, vacuous, error] = rows;
    expect(pass).toEqual(['`crash_after_write`', '✅ pass', '—', '`after_write`', '1/1', '1/1', 'none', 'settled in 1.40 s (1 kill)', '3.41 s']);
    expect(fail!.slice(0, 2)).toEqual(['`timeout_blind_retry`', '❌ fail']);
    expect(fail!.slice(3, 5)).toEqual(['`on_timeout`', '1/1']);
    expect(fail![5]).toBe('0/1: `1` expected review, got done');
    expect(fail![6]).toBe('`charge` ×2 (`ab12cd34ef56ab78:charge`)');
    expect(vacuous!.slice(1, 5)).toEqual([
      '⚠️ vacuous',
      'crash at after\\_verify (rule kill-after-verify, worker=w9) never fired: 0 hits',
      '`after_verify`',
      '0/1',
    ]);
    expect(error!.slice(1, 5)).toEqual([
      '❌ error',
      'the harness failed: QD\\_WORLD\\_NOT\\_READY: the world did not answer on 127.0.0.1 within 5000 ms its log ends: EADDRINUSE',
      '—',
      '—',
    ]);
  });

  it('says in its Broke column why each scenario did not pass, even where every other cell of its row looks fine', () => {
    // The broken invariants first, with the first line of evidence (escaped: a pipe, a backtick, markup), though its jobs
    // column says something else went wrong too.
    const fail = tableRows(markdown, 'Scenario')[1]!;
    expect(fail[2]).toMatch(/^broke no-duplicate-effect, review-routing: ledger: charge key=ab12cd34:charge applied by w1#1 and w1#2 \\<both\\> /);
    expect(fail[2]).toContain('\\| \\`tick\\`');
    // A failure whose other cells are all green (no duplicate, every job as expected, nothing to recover) still says what broke.
    const report = drillReport();
    const quiet = report.scenarios[1]!;
    quiet.jobs = quiet.jobs.map((job) => ({ ...job, matches: true, expected: { status: 'done' }, duplicatedEffects: [] }));
    quiet.expectations = [];
    quiet.duplicatedEffects = [];
    quiet.invariants = quiet.invariants.map((v) =>
      v.id === 'single-holder'
        ? { ...v, status: 'broken', evidence: ['job 1: w1 wrote done after w2 claimed it (epoch 2)'] }
        : { ...v, status: 'held', evidence: [] },
    );
    const row = tableRows(renderMarkdown(report), 'Scenario')[1]!;
    expect(row.slice(5, 7)).toEqual(['1/1', 'none']);
    expect(row[2]).toBe('broke single-holder: job 1: w1 wrote done after w2 claimed it (epoch 2)');
  });

  it('explains every scenario that did not pass, and only those, with its evidence and replay', () => {
    const problems = section(markdown, '## What did not pass');
    expect(problems.match(/^### /gm)).toHaveLength(3);
    expect(problems).not.toContain('crash_after_write');

    const fail = section(problems, '### ❌ `timeout_blind_retry`: fail');
    expect(fail).toContain('the charge call times out after applying | the worker must not retry it \\`blindly\\`');
    expect(fail).toContain('- `no-duplicate-effect`: no non-idempotent effect is applied twice for one key');
    expect(fail).toContain('- `review-routing`:');
    expect(fail).toContain('  job 1 is done with charge applied 2 times');
    expect(fail).toContain('job 1: unknown outcome of non-idempotent charge at attempt 1 went to retry, not review');
    expect(fail).not.toContain('`no-lost-job`');
    expect(fail).toContain('- job 1 (ab12cd34ef56ab78): expected review matching /unknown outcome/, ended done');
    expect(fail).toContain('**Replay:**\n\n```sh\nqueue-drill drill scenarios.yaml --only timeout_blind_retry --seed 42 --queue reference\n```');

    const vacuous = section(problems, '### ⚠️ `crash_after_verify`: vacuous');
    expect(vacuous).toContain('**Faults that never fired**');
    expect(vacuous).toContain('never fired: 0 hits');
    expect(vacuous).not.toContain('**Broken invariants:**');

    const error = section(problems, '### ❌ `world_unreachable`: error');
    expect(error).toContain(
      '**The harness failed:**\n\n```text\nQD_WORLD_NOT_READY: the world did not answer on 127.0.0.1 within 5000 ms\nits log ends: EADDRINUSE\n```',
    );
    expect(error).toContain('--only world_unreachable');
  });

  it('shows the life of each job a finding is about, and what happened, without the fault points passed with nothing happening', () => {
    const failing = drillReport();
    const scenario = failing.scenarios[1]!;
    scenario.timeline.splice(1, 0, {
      at: '2026-08-25T10:00:00.005Z',
      kind: 'fault-hit',
      process: 'w1#1',
      detail: 'w1 at after_claim job 1 attempt 1',
    });
    const fail = section(section(renderMarkdown(failing), '## What did not pass'), '### ❌ `timeout_blind_retry`: fail');
    expect(fail).toContain('**The jobs concerned:**');
    expect(fail).toContain('- Job `1` `ab12cd34ef56ab78`: expected review (reason matching `unknown outcome`), ended done ❌; 2 of 5 attempts');
    for (const line of jobLife(scenario.jobs[0]!)) expect(fail).toContain(`  ${line}\n`);
    expect(fail).toContain('without the 1 fault points passed with nothing happening');
    expect(fail).toContain('2026-08-25T10:00:00.010Z spawn             w1#1     worker w1');
    expect(fail).not.toContain('w1 at after_claim job 1 attempt 1');
  });

  it('shows at most 20 evidence lines of an invariant, 5 jobs’ lives and 60 events, and says where the rest is', () => {
    const long = drillReport();
    const scenario = long.scenarios[1]!;
    scenario.invariants.find((v) => v.id === 'no-duplicate-effect')!.evidence = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`);
    scenario.jobs = Array.from({ length: 7 }, (_, i) => ({ ...scenario.jobs[0]!, id: String(i + 1) }));
    scenario.timeline = Array.from({ length: 70 }, (_, i) => ({ at: '2026-08-25T10:00:00.000Z', kind: 'note' as const, detail: `event ${i + 1}` }));
    const fail = section(section(renderMarkdown(long), '## What did not pass'), '### ❌ `timeout_blind_retry`: fail');
    expect(fail).toContain('  line 20\n  … 5 more in report.json\n');
    expect(fail).not.toContain('line 21');
    expect(fail.match(/^- Job /gm)).toHaveLength(5);
    expect(fail).toContain('2 more in [report.html](report.html).');
    expect(fail).toContain('the first 60 of 70 events');
    expect(fail).toContain('event 60\n');
    expect(fail).not.toContain('event 61');
  });

  it('sums up every scenario, a passing one included: what it drills, its faults with their limits, jobs, recovery, invariants, replay', () => {
    const pass = section(section(markdown, '## Every scenario'), '### ✅ `crash_after_write`: pass');
    expect(pass.split('\n').filter((line) => line !== '')).toEqual([
      'SIGKILL the worker after its checkpoint is written; the job must be reclaimed and finish once',
      '- Fault `kill-after-write`: `crash` at `after_write` (worker=w1, attempt=1, first 1 hit): fired 1 of 1 hit',
      '- Job `1`: ended done as expected ✅; 2 of 5 attempts',
      '- Recovery: `w1#1` killed at `after_write`: job `1` taken back after 1.10 s, settled after 1.40 s',
      `- Invariants: ${N - 1} held; nothing to judge: \`saga-compensation\``,
      '- Queue `reference` (reference 0.1.0 (sqlite)), seed `42`, run 1, 3.41 s, run directory `drill-runs/2026-08-25T10-00-00Z/crash_after_write`',
      '- Replay: `queue-drill drill scenarios.yaml --only crash_after_write --seed 42 --queue reference`',
    ]);
    const fail = section(section(markdown, '## Every scenario'), '### ❌ `timeout_blind_retry`: fail');
    expect(fail).toContain('- Fault world #1: `tool=charge` (at most 1 call): fired 1 time');
    expect(fail).toContain('- Invariants: ❌ broken: `no-duplicate-effect`, `review-routing`;');
    expect(fail).toContain(
      '- Job `1`: expected review (reason matching `unknown outcome`), ended done ❌; 2 of 5 attempts; applied twice: `charge` ×2',
    );
  });

  it('is a summary: no passing scenario’s timeline or job history, nothing folded away', () => {
    const pass = section(section(markdown, '## Every scenario'), '### ✅ `crash_after_write`: pass');
    for (const line of jobLife(report.scenarios[0]!.jobs[0]!)) expect(pass).not.toContain(line);
    // Its job's life is nowhere in the Markdown (the failing scenario's job shares its first lines, not this one).
    expect(markdown).not.toContain('w1#2      running -> done  digest 9f2c');
    expect(pass).not.toContain('SIGKILL\n');
    expect(markdown).not.toContain('<details>');
  });

  it('groups jobs that ended alike, naming the first eight', () => {
    const many = passingReport();
    const scenario = many.scenarios[0]!;
    scenario.jobs = Array.from({ length: 20 }, (_, i) => ({ ...scenario.jobs[0]!, id: String(i + 1), attempts: i === 0 ? 2 : 1 }));
    const pass = section(renderMarkdown(many), '### ✅ `crash_after_write`: pass');
    expect(pass).toContain('- Job `1`: ended done as expected ✅; 2 of 5 attempts\n');
    expect(pass).toContain('- Jobs `2`, `3`, `4`, `5`, `6`, `7`, `8`, `9` and 11 more: ended done as expected ✅; 1 of 5 attempts\n');
  });

  it('keeps hostile text from breaking tables, fences or the page', () => {
    const hostile = drillReport();
    const scenario = hostile.scenarios[1]!;
    scenario.name = 'pipe|and`tick`';
    scenario.description = '<img src=x onerror=alert(1)> *not emphasis* [not](a link)';
    scenario.invariants[1]!.evidence.push('```', 'a line after a fence in the evidence');
    const md = renderMarkdown(hostile);

    const rows = tableRows(md, 'Scenario');
    for (const row of rows) expect(row).toHaveLength(9);
    expect(rows[1]![0]).toBe('`` pipe\\|and`tick` ``');
    // The evidence fence is longer than the fence inside it, so the line after it is still evidence.
    expect(md).toContain('  ````text\n');
    expect(md).toMatch(/ {2}```\n {2}a line after a fence in the evidence\n {2}````/);
    // Outside code, nothing renders as HTML, emphasis or a link.
    const rendered = outsideCode(md);
    expect(rendered).not.toMatch(/(?<!\\)<img/);
    expect(rendered).toContain('\\<img src=x onerror=alert(1)\\> \\*not emphasis\\* \\[not\\](a link)');
    // No control characters reach the page; they are shown instead.
    expect(md).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(md).toContain('\\x1B[31mred\\x1B[0m nul:\\x00');
    expect(md).not.toMatch(/[\uD800-\uDFFF]/);
  });

  it('balances every code fence', () => {
    for (const md of [markdown, renderMarkdown(interruptedReport())]) {
      const fences = md.split('\n').filter((line) => /^ *`{3,}/.test(line));
      expect(fences.length % 2).toBe(0);
      for (let i = 0; i < fences.length; i += 2) {
        expect(fences[i]!.trim()).toMatch(/^`{3,}(sh|text)$/);
        expect(fences[i + 1]!.trim()).toBe(/^ *(`+)/.exec(fences[i]!)![1]);
      }
    }
  });

  it('says so plainly when everything passed, with no problems section', () => {
    const md = renderMarkdown(passingReport());
    expect(md).toContain('**✅ all 1 scenario passed** (exit code 0)');
    expect(md).not.toContain('## What did not pass');
    expect(md).toContain('## Every scenario');
  });

  it('names repeated runs of one scenario apart', () => {
    const repeated: DrillReport = passingReport();
    repeated.scenarios.push({ ...repeated.scenarios[0]!, repeat: 2 });
    repeated.summary = { ...repeated.summary, scenarios: 2, passed: 2 };
    const rows = tableRows(renderMarkdown(repeated), 'Scenario');
    expect(rows.map((row) => row[0])).toEqual(['`crash_after_write (run 1)`', '`crash_after_write (run 2)`']);
  });
});

describe('renderMarkdown, when the queue could not give some evidence', () => {
  const report = notJudgedReport();
  const markdown = renderMarkdown(report);

  it('counts the verdicts not judged in the header, apart from held, and still calls the scenario passed', () => {
    const head = markdown.slice(0, markdown.indexOf('| Scenario |'));
    expect(head).toContain('**✅ all 1 scenario passed** (exit code 0)');
    expect(head).toContain(`- Invariant verdicts: ${N - NEEDS_HISTORY.length} held, 0 broken, ${NEEDS_HISTORY.length} not judged\n`);
    expect(markdown).not.toContain('## What did not pass');
    expect(tableRows(markdown, 'Scenario')[0]!.slice(0, 2)).toEqual(['`crash_after_write`', '✅ pass']);
  });

  it('names the invariants not judged with the reason, once for all that share it, never as held', () => {
    const line = markdown.split('\n').find((l) => l.startsWith('- Invariants: '))!;
    expect(line).toBe(
      `- Invariants: ${N - NEEDS_HISTORY.length} held; not judged (${NO_HISTORY_NOTE}): ${NEEDS_HISTORY.map((id) => `\`${id}\``).join(', ')}`,
    );
    expect(markdown).toContain('- Queue `stub` (stub 0.0.1), seed `42`');
  });

  it('escapes a hostile not-judged reason like any prose', () => {
    const hostile = notJudgedReport();
    for (const verdict of hostile.scenarios[0]!.invariants.filter((v) => v.status === 'not_judged')) {
      verdict.note = 'needs history: <b>no</b> | `tick` *star*\nsecond line';
    }
    const line = renderMarkdown(hostile)
      .split('\n')
      .find((l) => l.startsWith('- Invariants: '))!;
    expect(line).toContain('not judged (needs history: \\<b\\>no\\</b\\> | \\`tick\\` \\*star\\* second line): ');
  });

  it('says in a scenario the queue refused why it was not judged', () => {
    const refused = passingReport();
    Object.assign(refused.scenarios[0]!, { verdict: 'not_judged', notJudged: 'a lease of 300 ms is below 1 s', invariants: [], jobs: [] });
    const md = renderMarkdown(refused);
    expect(md).toContain('### ➖ `crash_after_write`: not judged');
    expect(md).toContain('**Not judged: the queue cannot run this scenario as asked.** a lease of 300 ms is below 1 s');
    expect(md).toContain('- Invariants: none judged');
  });
});

describe('renderMarkdown, when an invariant had nothing to judge where the scenario should have given it something', () => {
  const markdown = renderMarkdown(nothingJudgedReport());

  it('marks the scenario vacuous and says which invariant had nothing, and why it should have had something', () => {
    expect(markdown).toContain('**⚠️ 0 of 1 scenario passed: 1 vacuous** (exit code 1)');
    const vacuous = section(markdown, '### ⚠️ `concurrent_enqueue`: vacuous');
    expect(vacuous).toContain('**Invariants that had nothing to judge where the scenario should have given them something**');
    // As prose: Markdown's special characters escaped.
    expect(vacuous).toContain(`- ${NOTHING_JUDGED_LINE.replace('*', '\\*')}\n`);
    expect(vacuous).not.toContain('**Faults that never fired**');
  });

  it('lists the invariants that held on nothing apart from those that held on something', () => {
    const line = markdown.split('\n').find((l) => l.startsWith('- Invariants: '))!;
    expect(line).toBe(`- Invariants: ${N - 2} held; nothing to judge: \`dedupe-on-enqueue\`, \`saga-compensation\``);
  });
});

describe('renderMarkdown, for an interrupted drill', () => {
  const markdown = renderMarkdown(interruptedReport());

  it('says it was interrupted, by what, and how many runs stopped and never started, first', () => {
    expect(markdown).toContain(
      '**⏹️ interrupted by SIGINT: 1 scenario run stopped before rest (not judged), 2 never started; ' +
        '1/4 passed, 0 failed, 0 vacuous, 1 interrupted, 2 never started, 0 errors** (exit code 3)',
    );
    const interrupted = section(markdown, '## Interrupted');
    expect(interrupted).toContain('The drill was interrupted by `SIGINT`.');
    expect(interrupted).toContain('- Stopped before rest (1): `zombie_worker`');
    expect(interrupted).toContain('- Never started (2): `crash_after_verify`, `world_unreachable`');
  });

  it('calls the half-run interrupted, not a failure: no broken invariant, no job held to what was expected', () => {
    expect(tableRows(markdown, 'Scenario')[1]!.slice(0, 6)).toEqual([
      '`zombie_worker`',
      '⏹️ interrupted',
      `interrupted, so not judged: ${INTERRUPTED_LINE}`,
      '`on_timeout`',
      '1/2',
      'not judged: 1 running when stopped',
    ]);
    const problem = section(section(markdown, '## What did not pass'), '### ⏹️ `zombie_worker`: interrupted');
    expect(problem).toContain(`**Interrupted, so not judged:** ${INTERRUPTED_LINE}. Its jobs are shown where they stood.`);
    expect(problem).not.toContain('Broken invariants');
    expect(problem).not.toContain('did not end as expected');
    expect(problem).not.toContain('❌');
    const summary = section(section(markdown, '## Every scenario'), '### ⏹️ `zombie_worker`: interrupted');
    expect(summary).toContain('- Job `1`: stood at running when stopped (expected done; not judged); 2 of 5 attempts');
    expect(summary).toContain('- Fault `pause-w1`: `pause` at `after_write` (ms=60000, first 1 hit): fired 1 of 1 hit');
    expect(summary).toContain('- Fault `later`: `crash` at `before_complete` (every hit, probability 0.5): fired 0 of 0 hits');
    expect(summary).toContain(`- Invariants: 0 held; not judged (${INTERRUPTED_NOTE}): `);
  });
});

describe('what a person can do next', () => {
  it('gives the approval a waiting job needs, as its report says it, on the scenario', () => {
    const report = passingReport();
    const job = report.scenarios[0]!.jobs[0]!;
    job.approve = 'npx queue-drill approve 1 --store /tmp/run/queue.db';
    expect(renderMarkdown(report)).toContain(
      `- Job \`${job.id}\` waits for a person's approval; to approve it: \`npx queue-drill approve 1 --store /tmp/run/queue.db\`\n`,
    );
    // Without a command in a job's report, nothing is said.
    expect(renderMarkdown(passingReport())).not.toContain('waits for a person');
  });
});

describe('a drill on a starved machine', () => {
  const markdown = renderMarkdown(inconclusiveReport());

  it('counts the inconclusive scenario apart in its headline, and says the machine starved the drill, naming the worst span', () => {
    expect(markdown).toContain('**⏳ 1 of 2 scenarios passed: 1 inconclusive (the machine starved it)** (exit code 4)');
    expect(markdown).toMatch(
      /^- The machine starved the drill: worst span w1#2 510 ms \(not run from 10:00:01\.500 to 10:00:02\.010\) in slow\\_machine; 1 inconclusive: run it again/m,
    );
    expect(tableRows(markdown, 'Scenario')[1]!.slice(0, 2)).toEqual(['`slow_machine`', '⏳ inconclusive (starved)']);
  });

  it('lists what starvation explains under what did not pass, each line escaped, with the starvation and no claim of a failure', () => {
    const problem = section(section(markdown, '## What did not pass'), '### ⏳ `slow_machine`: inconclusive (starved)');
    expect(problem).toContain('**Inconclusive: the machine starved the drill: a starved span explains every finding, and no safety invariant broke;');
    expect(problem).toContain('**What starvation explains:**');
    expect(problem).toContain(`- ${INCONCLUSIVE_LINES[0]}`);
    expect(problem).toContain('(250 ms or more can cost a holder its lease or a caller its answer) | \\<i\\>\\*\\</i\\>');
    expect(outsideCode(problem)).not.toContain('<i>');
    expect(problem).toContain('**Starvation:** 3 starved spans, 710 ms in all; worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010).');
    expect(problem).toContain('**Invariants that did not hold on the starved machine:**');
    expect(problem).not.toContain('**Broken invariants:**');
    // The starved spans are what happened; the processes coming up are not.
    expect(problem).toContain('starved           w1#2     w1#2 was not run for 510 ms');
    expect(problem).not.toMatch(/ ready +/);
  });

  it("gives each scenario's starvation and its time scale when not 1, a passing one's too", () => {
    const summary = section(section(markdown, '## Every scenario'), '### ⏳ `slow_machine`: inconclusive (starved)');
    expect(summary).toContain('- Invariants: ⏳ not held on the starved machine: `no-lost-job`; 13 held');
    expect(summary).toContain('- Starvation: 3 starved spans, 710 ms in all; worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010)');
    expect(summary).toContain('seed `42`, run 1, every duration ×2, 8.40 s');
    const passing = inconclusiveReport();
    passing.scenarios[0]!.starvation = { spans: [{ ...STARVED_SPAN }], totalMs: 510, worst: { ...STARVED_SPAN } };
    const pass = section(section(renderMarkdown(passing), '## Every scenario'), '### ✅ `crash_after_write`: pass');
    expect(pass).toContain('- Starvation: 1 starved span, 510 ms in all; worst span w1#2 510 ms');
    expect(pass).not.toContain('every duration ×');
    expect(renderMarkdown(passingReport())).not.toMatch(/starved/i);
  });
});

describe('renderMarkdown, of a drill that chose its time scale and ran a starved scenario again', () => {
  const report = retriedReport();
  const markdown = renderMarkdown(report);
  const header = section(markdown, '# queue-drill recovery report');

  it('is a valid report', () => {
    expect(DrillReportSchema.safeParse(report).success).toBe(true);
  });

  it('says in its header line the time scale and how it was chosen: what the machine measured', () => {
    expect(header).toMatch(
      /^- Queue: `reference` · seed `42` · scenarios file `scenarios\.yaml` · time scale ×1\.5 \(auto: a process started in 589 ms on this machine, a timer fired 4 ms late; every lease, timeout and delay stretched ×1\.5\)$/m,
    );
  });

  it.each([
    ['the scale 1 given: nothing, as a drill has always read', 1, null, null],
    ['a scale given', 2, null, 'time scale ×2 (given; every lease, timeout and delay stretched ×2)'],
    [
      'the scale 1 chosen by auto',
      1,
      { startupMs: 113, timerLatenessMs: 2, scale: 1 },
      'time scale ×1 (auto: this machine was quiet: a process started in 113 ms',
    ],
  ])('says the time scale for %s', (_, timeScale, calibration, expected) => {
    const line = section(renderMarkdown({ ...passingReport(), timeScale, calibration }), '# queue-drill recovery report')
      .split('\n')
      .find((l) => l.startsWith('- Queue:'))!;
    if (expected === null) expect(line).not.toContain('time scale');
    else expect(line).toContain(` · ${expected}`);
  });

  it('says in the table that the pass came on a retry, after the starved attempt', () => {
    expect(tableRows(markdown, 'Scenario').map((row) => row.slice(0, 2))).toEqual([
      ['`crash_after_write`', '✅ pass'],
      ['`slow_machine`', '✅ pass at ×3, after ⏳ inconclusive at ×1.5'],
    ]);
  });

  it('lists each earlier attempt, its scale, verdict, run directory and first inconclusive line (escaped), before this run', () => {
    const summary = section(section(markdown, '## Every scenario'), '### ✅ `slow_machine`: pass');
    const lines = summary.split('\n').filter((line) => line.startsWith('- '));
    expect(lines.slice(0, 2)).toEqual([
      `- Attempt 1 of 2: ⏳ inconclusive (starved) at time scale ×1.5, 8.40 s, run directory \`${EARLIER_RUN_DIR}\`: ` +
        'job 1 ended running, not done, after w1#2 was not run for 640 ms, from 10:00:01.500 to 10:00:02.140 | ' +
        '\\<i\\>"starved"\\</i\\> \\& \\*\\]\\]\\>',
      '- Attempt 2 of 2, this run: ✅ pass at time scale ×3',
    ]);
    expect(EARLIER_INCONCLUSIVE_LINE).toContain('<i>');
    expect(outsideCode(markdown)).not.toMatch(/(?<!\\)<i>/);
    expect(summary).toContain(`run directory \`${EARLIER_RUN_DIR}.retry1\``);
    // The scenario that ran once says nothing of attempts.
    expect(section(section(markdown, '## Every scenario'), '### ✅ `crash_after_write`: pass')).not.toContain('Attempt');
    expect(CALIBRATION.scale).toBe(report.timeScale);
  });

  it('lists them too where a scenario still did not pass, before what starvation explains in its last run', () => {
    const still = inconclusiveReport();
    still.scenarios[1]!.earlierAttempts = [...retriedReport().scenarios[1]!.earlierAttempts!];
    const problem = section(section(renderMarkdown(still), '## What did not pass'), '### ⏳ `slow_machine`: inconclusive (starved)');
    const attempts = problem.indexOf('**Every attempt**');
    expect(attempts).toBeGreaterThanOrEqual(0);
    expect(problem).toContain('- Attempt 1 of 2: ⏳ inconclusive (starved) at time scale ×1.5, 8.40 s');
    expect(problem).toContain('- Attempt 2 of 2, this run: ⏳ inconclusive (starved) at time scale ×2');
    expect(attempts).toBeLessThan(problem.indexOf('**Inconclusive:'));
  });
});
