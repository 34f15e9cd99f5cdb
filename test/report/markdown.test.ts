import { describe, expect, it } from 'vitest';
import { INVARIANT_IDS } from '../../src/kernel/vocabulary.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { type DrillReport, REPORT_VERSION } from '../../src/report/schema.js';
import { drillReport, NEEDS_HISTORY, NO_HISTORY_NOTE, NOTHING_JUDGED_LINE, nothingJudgedReport, notJudgedReport, passingReport } from './fixture.js';

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

  it('opens with the command, the seed, the queue, the time and a summary line', () => {
    const head = markdown.slice(0, markdown.indexOf('| Scenario |'));
    expect(head).toContain('# queue-drill recovery report');
    expect(head).toContain('**❌ 1 of 4 scenarios passed: 1 failed, 1 vacuous, 1 error** (exit code 1)');
    expect(head).toContain('```sh\nqueue-drill drill scenarios.yaml --seed 42 --queue reference\n```');
    expect(head).toMatch(/Queue: `reference` · seed `42` · scenarios file `scenarios\.yaml`/);
    expect(head).toContain('Started 2026-08-25T10:00:00.000Z, finished 2026-08-25T10:00:15.735Z (15.7 s)');
    expect(head).toContain(`- queue-drill 0.1.0, report version ${REPORT_VERSION}\n`);
    expect(head).toContain(`- Invariant verdicts: ${3 * N - 2} held, 2 broken, 0 not judged\n`);
  });

  it('has a table with one row of eight cells per scenario and the facts of each', () => {
    const rows = tableRows(markdown, 'Scenario');
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toHaveLength(8);
    const [pass, fail, vacuous, error] = rows;
    expect(pass).toEqual(['`crash_after_write`', '✅ pass', '`after_write`', '1/1', '1/1', 'none', 'settled in 1.40 s (1 kill)', '3.41 s']);
    expect(fail!.slice(0, 4)).toEqual(['`timeout_blind_retry`', '❌ fail', '`on_timeout`', '1/1']);
    expect(fail![4]).toBe('0/1: `1` expected review, got done');
    expect(fail![5]).toBe('`charge` ×2 (`ab12cd34ef56ab78:charge`)');
    expect(vacuous!.slice(1, 4)).toEqual(['⚠️ vacuous', '`after_verify`', '0/1']);
    expect(error!.slice(1, 4)).toEqual(['❌ error', '—', '—']);
  });

  it('explains every scenario that did not pass, and only those', () => {
    const problems = section(markdown, '## What did not pass');
    expect(problems.match(/^### /gm)).toHaveLength(3);
    expect(problems).not.toContain('crash_after_write');

    const fail = section(markdown, '### ❌ `timeout_blind_retry`: fail');
    expect(fail).toContain('- `no-duplicate-effect`: no non-idempotent effect is applied twice for one key');
    expect(fail).toContain('- `review-routing`:');
    expect(fail).toContain('  job 1 is done with charge applied 2 times');
    expect(fail).toContain('job 1: unknown outcome of non-idempotent charge at attempt 1 went to retry, not review');
    expect(fail).not.toContain('`no-lost-job`');
    expect(fail).toContain('- job 1 (ab12cd34ef56ab78): expected review matching /unknown outcome/, ended done');
    expect(fail).toContain('**Replay:**\n\n```sh\nqueue-drill drill scenarios.yaml --only timeout_blind_retry --seed 42 --queue reference\n```');

    const vacuous = section(markdown, '### ⚠️ `crash_after_verify`: vacuous');
    expect(vacuous).toContain('**Faults that never fired**');
    expect(vacuous).toContain('never fired: 0 hits');
    expect(vacuous).not.toContain('**Broken invariants:**');

    const error = section(markdown, '### ❌ `world_unreachable`: error');
    expect(error).toContain(
      '**The harness failed:**\n\n```text\nQD_WORLD_NOT_READY: the world did not answer on 127.0.0.1 within 5000 ms\nits log ends: EADDRINUSE\n```',
    );
    expect(error).toContain('--only world_unreachable');
  });

  it('folds every verdict and every job history into one <details> per scenario', () => {
    const blocks = markdown.split('<details>').slice(1);
    expect(blocks).toHaveLength(4);
    expect(markdown.match(/<\/details>/g)).toHaveLength(4);
    const [pass, fail, , error] = blocks;
    // GitHub renders Markdown inside <details> only after a blank line.
    for (const block of blocks) expect(block).toMatch(/^\n<summary>[^\n]*<\/summary>\n\n/);
    expect(pass).toContain(`<summary>✅ crash_after_write: pass, ${N}/${N} invariants hold, 1 job</summary>`);
    expect(fail).toContain(`<summary>❌ timeout_blind_retry: fail, ${N - 2}/${N} invariants hold, 1 job</summary>`);
    expect(error).toContain('no invariant judged, 0 jobs');
    const invariants = tableRows(pass!, 'Invariant');
    expect(invariants).toHaveLength(N);
    expect(invariants.at(-1)).toEqual([
      '`saga-compensation`',
      '✅',
      'after a failed step, completed steps are compensated in reverse order',
      'nothing to judge: no saga was compensated in this drill',
    ]);
    expect(
      tableRows(fail!, 'Invariant')
        .filter((row) => row[1] === '❌')
        .map((row) => row[0]),
    ).toEqual(['`no-duplicate-effect`', '`review-routing`']);
    for (const line of report.scenarios[0]!.jobs[0]!.history) expect(pass).toContain(`\n${line}\n`);
    expect(pass).toContain('**Job `1`** `ab12cd34ef56ab78` ✅: expected done, ended done; attempts 2/5.');
    expect(pass).toContain('Queue `reference` (reference 0.1.0 (sqlite)), seed `42`, run 1, 3.41 s,');
    expect(pass).not.toContain('not judged');
    expect(fail).toContain('Duplicated effects: `charge` ×2');
    expect(tableRows(pass!, 'Process')).toEqual([['`w1#1`', '2026-08-25T10:00:00.300Z', '`after_write`', '`1`', '1.10 s', '1.40 s']]);
  });

  it('keeps hostile text from breaking tables, fences or the page', () => {
    const hostile = drillReport();
    const scenario = hostile.scenarios[1]!;
    scenario.name = 'pipe|and`tick`';
    scenario.description = '<img src=x onerror=alert(1)> *not emphasis* [not](a link)';
    scenario.invariants[1]!.evidence.push('```', 'a line after a fence in the evidence');
    const md = renderMarkdown(hostile);

    const rows = tableRows(md, 'Scenario');
    for (const row of rows) expect(row).toHaveLength(8);
    expect(rows[1]![0]).toBe('`` pipe\\|and`tick` ``');
    // The evidence fence is longer than the fence inside it, so the line after it is still evidence.
    expect(md).toContain('  ````text\n');
    expect(md).toMatch(/ {2}```\n {2}a line after a fence in the evidence\n {2}````/);
    // Outside code, nothing renders as HTML, emphasis or a link.
    const rendered = outsideCode(md);
    expect(rendered).not.toMatch(/(?<!\\)<img/);
    expect(rendered).toContain('\\<img src=x onerror=alert(1)\\> \\*not emphasis\\* \\[not\\](a link)');
    expect(md).toContain('<summary>❌ pipe|and`tick`: fail');
    // No control characters reach the page; they are shown instead.
    expect(md).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(md).toContain('\\x1B[31mred\\x1B[0m nul:\\x00');
    expect(md).not.toMatch(/[\uD800-\uDFFF]/);
  });

  it('balances every code fence', () => {
    const fences = markdown.split('\n').filter((line) => /^ *`{3,}/.test(line));
    expect(fences.length % 2).toBe(0);
    for (let i = 0; i < fences.length; i += 2) {
      expect(fences[i]!.trim()).toMatch(/^`{3,}(sh|text)$/);
      expect(fences[i + 1]!.trim()).toBe(/^ *(`+)/.exec(fences[i]!)![1]);
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
  const block = markdown.split('<details>')[1]!;

  it('counts the verdicts not judged in the header, apart from held, and still calls the scenario passed', () => {
    const head = markdown.slice(0, markdown.indexOf('| Scenario |'));
    expect(head).toContain('**✅ all 1 scenario passed** (exit code 0)');
    expect(head).toContain(`- Invariant verdicts: ${N - NEEDS_HISTORY.length} held, 0 broken, ${NEEDS_HISTORY.length} not judged\n`);
    expect(markdown).not.toContain('## What did not pass');
    expect(tableRows(markdown, 'Scenario')[0]!.slice(0, 2)).toEqual(['`crash_after_write`', '✅ pass']);
  });

  it('says how many hold and how many were not judged in the summary line, and names the queue version', () => {
    expect(block).toContain(
      `<summary>✅ crash_after_write: pass, ${N - NEEDS_HISTORY.length}/${N} invariants hold, ${NEEDS_HISTORY.length} not judged, 1 job</summary>`,
    );
    expect(block).toContain('Queue `stub` (stub 0.0.1), seed `42`');
  });

  it('marks each invariant not judged as such, with the reason in the evidence column, never as held', () => {
    const rows = tableRows(block, 'Invariant');
    expect(rows).toHaveLength(N);
    for (const row of rows) expect(row).toHaveLength(4);
    const notJudged = rows.filter((row) => row[1] === '➖ not judged');
    expect(notJudged.map((row) => row[0])).toEqual(NEEDS_HISTORY.map((id) => `\`${id}\``));
    // The note as prose: Markdown's special characters escaped, nothing else changed.
    for (const row of notJudged) expect(row[3]).toBe(`not judged: ${NO_HISTORY_NOTE}`);
    expect(rows.filter((row) => row[1] === '✅').map((row) => row[3])).toEqual(Array.from({ length: N - NEEDS_HISTORY.length }, () => 'judged 3'));
  });

  it('escapes a hostile not-judged reason like any prose', () => {
    const hostile = notJudgedReport();
    const verdict = hostile.scenarios[0]!.invariants.find((v) => v.status === 'not_judged')!;
    verdict.note = 'needs history: <b>no</b> | `tick` *star*\nsecond line';
    const row = tableRows(renderMarkdown(hostile).split('<details>')[1]!, 'Invariant').find((r) => r[0] === `\`${verdict.id}\``)!;
    expect(row).toHaveLength(4);
    expect(row[3]).toBe('not judged: needs history: \\<b\\>no\\</b\\> \\| \\`tick\\` \\*star\\* second line');
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

  it('says "nothing to judge" for a held invariant that judged nothing, and how many items one judged otherwise', () => {
    const rows = tableRows(markdown.split('<details>')[1]!, 'Invariant');
    expect(rows.find((row) => row[0] === '`dedupe-on-enqueue`')![3]).toBe(
      "nothing to judge: no key had two producers' enqueue calls in flight at once: nothing raced",
    );
    expect(rows.find((row) => row[0] === '`no-lost-job`')![3]).toBe('judged 3');
  });
});
