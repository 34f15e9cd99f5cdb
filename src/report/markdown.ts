import { baselineLines } from './baseline-lines.js';
import { describeReproduction } from './reproduction-line.js';
import { scenarioLabel } from './scenario-label.js';
import type { DrillReport, JobReport, ScenarioReport, ScenarioVerdict } from './schema.js';
import { shardLines } from './shard-lines.js';
import { visibleText } from './visible-text.js';

/*
 * The report as a person reads it in a pull request or an issue: what was run
 * and what it found first, then what went wrong and how to replay it, then
 * everything else folded away in <details>. Every string from the report is
 * data, not Markdown: scenario names, reasons and evidence can hold `|`,
 * backticks or `<tag>`, and must neither break a table nor inject HTML.
 * Identifiers go in code spans, prose is escaped, evidence goes in code blocks.
 */

const MARKER: Record<ScenarioVerdict, string> = { pass: '✅', fail: '❌', vacuous: '⚠️', not_judged: '➖', error: '❌' };

/** The report as GitHub-flavoured Markdown. */
export function renderMarkdown(report: DrillReport): string {
  const out: string[] = [];
  header(report, out);
  if (report.baseline) baselineSection(report.baseline, out);
  scenarioTable(report, out);
  const notPassed = report.scenarios.filter((s) => s.verdict !== 'pass');
  if (notPassed.length > 0) {
    out.push('## What did not pass', '');
    for (const scenario of notPassed) problems(scenario, scenarioLabel(scenario, report.scenarios), out);
  }
  if (report.scenarios.length > 0) {
    out.push('## Every scenario', '');
    for (const scenario of report.scenarios) details(scenario, scenarioLabel(scenario, report.scenarios), out);
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function baselineSection(baseline: NonNullable<DrillReport['baseline']>, out: string[]): void {
  const { head, regressions, others } = baselineLines(baseline);
  out.push(`## Against the baseline`, '', `**${text(head)}**`, '');
  if (regressions.length > 0) out.push(...regressions.map((line) => `- ❌ regression: ${text(line)}`), '');
  if (others.length > 0) out.push(...others.map((line) => `- ${text(line)}`), '');
}

function header(report: DrillReport, out: string[]): void {
  const { summary } = report;
  const allPassed = summary.passed === summary.scenarios && summary.scenarios > 0;
  const counts = [
    summary.failed > 0 ? `${summary.failed} failed` : null,
    summary.vacuous > 0 ? `${summary.vacuous} vacuous` : null,
    summary.notJudged > 0 ? `${summary.notJudged} not judged (the queue cannot run them as asked)` : null,
    summary.errors > 0 ? `${summary.errors} error${summary.errors === 1 ? '' : 's'}` : null,
  ].filter((part) => part !== null);
  const line = allPassed
    ? `✅ all ${summary.scenarios} scenario${summary.scenarios === 1 ? '' : 's'} passed`
    : `${summary.failed + summary.errors > 0 ? '❌' : '⚠️'} ${summary.passed} of ${summary.scenarios} ` +
      `scenario${summary.scenarios === 1 ? '' : 's'} passed${counts.length > 0 ? `: ${counts.join(', ')}` : ''}`;
  out.push(
    '# queue-drill recovery report',
    '',
    `**${line}** (exit code ${report.exitCode})`,
    '',
    ...fence(report.command, 'sh'),
    '',
    `- Queue: ${code(report.queue)} · seed ${code(String(report.seed))} · scenarios file ${code(report.file)}`,
    `- Started ${report.startedAt}, finished ${report.finishedAt} (${duration(report.durationMs)})`,
    `- queue-drill ${text(report.toolVersion)}, report version ${report.version}`,
    `- Invariant verdicts: ${summary.invariants.held} held, ${summary.invariants.broken} broken, ${summary.invariants.notJudged} not judged`,
    ...shardBullets(report),
    '',
  );
}

// Paths and commands in code spans, the rest escaped: a path may hold anything.
function shardBullets(report: DrillReport): string[] {
  const lines = shardLines(report);
  if (!lines) return [];
  const shards = (report.merged ?? []).map(
    (s) => `  - shard ${s.index}/${report.merged!.length}: ${code(s.report)} (exit code ${s.exitCode}, ${duration(s.durationMs)}) ${code(s.command)}`,
  );
  return [`- ${text(lines.head.charAt(0).toUpperCase() + lines.head.slice(1))}`, ...shards];
}

function scenarioTable(report: DrillReport, out: string[]): void {
  if (report.scenarios.length === 0) {
    out.push('No scenario was run.', '');
    return;
  }
  out.push(
    row(['Scenario', 'Verdict', 'Fault points', 'Fired/armed', 'Jobs as expected', 'Duplicated effects', 'Recovery', 'Duration']),
    row(Array.from({ length: 8 }, () => '---')),
  );
  for (const scenario of report.scenarios) {
    out.push(
      row([
        code(scenarioLabel(scenario, report.scenarios)),
        `${MARKER[scenario.verdict]} ${scenario.verdict}`,
        scenario.faultPoints.length > 0 ? scenario.faultPoints.map(code).join(', ') : '—',
        firedOfArmed(scenario),
        jobsCell(scenario.jobs),
        scenario.duplicatedEffects.length > 0
          ? scenario.duplicatedEffects.map((d) => `${code(d.tool)} ×${d.times} (${code(d.key)})`).join(', ')
          : 'none',
        recoveryCell(scenario),
        duration(scenario.durationMs),
      ]),
    );
  }
  out.push('');
}

function firedOfArmed(scenario: ScenarioReport): string {
  const armed = [...scenario.faults, ...scenario.worldFaults];
  if (armed.length === 0) return '—';
  return `${armed.filter((f) => f.fired > 0).length}/${armed.length}`;
}

function jobsCell(jobs: readonly JobReport[]): string {
  if (jobs.length === 0) return '—';
  const wrong = jobs.filter((j) => !j.matches);
  const listed = wrong.slice(0, 3).map((j) => `${jobName(j.id)} expected ${text(j.expected.status)}, got ${text(j.actual.status)}`);
  if (wrong.length > listed.length) listed.push(`${wrong.length - listed.length} more`);
  return `${jobs.length - wrong.length}/${jobs.length}${listed.length > 0 ? `: ${listed.join('; ')}` : ''}`;
}

// The slowest kill-to-settled time is the one a reader needs; a job never settled after a kill outweighs any time.
function recoveryCell(scenario: ScenarioReport): string {
  if (scenario.recovery.length === 0) return '—';
  const settled = scenario.recovery.map((r) => r.killToSettledMs).filter((ms) => ms !== null);
  const unsettled = scenario.recovery.filter((r) => r.jobId !== null && r.settledAt === null).length;
  const kills = `${scenario.recovery.length} kill${scenario.recovery.length === 1 ? '' : 's'}`;
  const parts = [
    settled.length > 0 ? `settled in ${duration(Math.max(...settled))}` : null,
    unsettled > 0 ? `${unsettled} job${unsettled === 1 ? '' : 's'} never settled` : null,
  ].filter((p) => p !== null);
  return `${parts.length > 0 ? parts.join(', ') : 'no job to settle'} (${kills})`;
}

function problems(scenario: ScenarioReport, label: string, out: string[]): void {
  out.push(`### ${MARKER[scenario.verdict]} ${code(label)}: ${scenario.verdict}`, '');
  if (scenario.description !== '') out.push(text(scenario.description), '');
  if (scenario.error !== null) out.push('**The harness failed:**', '', ...fence(scenario.error, 'text'), '');
  if (scenario.notJudged !== null) out.push(`**Not judged: the queue cannot run this scenario as asked.** ${text(scenario.notJudged)}`, '');
  const broken = scenario.invariants.filter((v) => v.status === 'broken');
  if (broken.length > 0) {
    out.push('**Broken invariants:**', '');
    for (const verdict of broken) {
      out.push(`- ${code(verdict.id)}: ${text(verdict.statement)}`);
      if (verdict.evidence.length > 0) out.push('', ...fence(verdict.evidence.join('\n'), 'text', '  '), '');
    }
    if (out.at(-1) !== '') out.push('');
  }
  if (scenario.expectations.length > 0) {
    out.push('**Jobs that did not end as expected:**', '', ...scenario.expectations.map((line) => `- ${text(line)}`), '');
  }
  if (scenario.unfired.length > 0) {
    out.push('**Faults that never fired** (the drill did not test what it claims to):', '', ...scenario.unfired.map((line) => `- ${text(line)}`), '');
  }
  if (scenario.nothingJudged.length > 0) {
    out.push(
      '**Invariants that had nothing to judge where the scenario should have given them something** (the drill did not test what it claims to):',
      '',
      ...scenario.nothingJudged.map((line) => `- ${text(line)}`),
      '',
    );
  }
  out.push('**Replay:**', '', ...fence(scenario.replay, 'sh'), '');
}

const VERDICT_MARK: Record<ScenarioReport['invariants'][number]['status'], string> = { held: '✅', broken: '❌', not_judged: '➖ not judged' };

function evidenceCell(v: ScenarioReport['invariants'][number]): string {
  switch (v.status) {
    case 'held':
      if (v.judged === 0) return `nothing to judge${v.note !== undefined ? `: ${text(v.note)}` : ''}`;
      return `judged ${v.judged}${v.note !== undefined ? `; ${text(v.note)}` : ''}`;
    case 'not_judged':
      return `not judged: ${text(v.note ?? 'the queue cannot give the evidence it needs')}`;
    case 'broken':
      return `${v.evidence.length} line${v.evidence.length === 1 ? '' : 's'}${v.evidence[0] !== undefined ? `, first: ${code(v.evidence[0])}` : ''}`;
    default: {
      const unreachable: never = v.status;
      throw new Error(`unknown verdict status ${String(unreachable)}`);
    }
  }
}

/** The queue's own options its adapter set from the scenario, where it set any. */
function queueSettings(scenario: ScenarioReport, out: string[]): void {
  const settings = Object.entries(scenario.queueSettings);
  if (settings.length > 0)
    out.push(`The queue's own options, as its adapter set them: ${settings.map(([k, v]) => code(`${k}=${String(v)}`)).join(', ')}.`, '');
}

/** The opening of a scenario's details: its summary line, queue, seed and run, and whether it reproduced a failing run. */
function detailsOpening(scenario: ScenarioReport, label: string, out: string[]): void {
  const holding = scenario.invariants.filter((v) => v.status === 'held').length;
  const notJudged = scenario.invariants.filter((v) => v.status === 'not_judged').length;
  const judgedLine =
    scenario.invariants.length > 0
      ? `${holding}/${scenario.invariants.length} invariants hold${notJudged > 0 ? `, ${notJudged} not judged` : ''}`
      : 'no invariant judged';
  out.push(
    '<details>',
    `<summary>${MARKER[scenario.verdict]} ${html(label)}: ${scenario.verdict}, ${judgedLine}, ` +
      `${scenario.jobs.length} job${scenario.jobs.length === 1 ? '' : 's'}</summary>`,
    // A blank line after <summary> lets GitHub render the Markdown inside.
    '',
    `Queue ${code(scenario.queue)} (${text(scenario.queueVersion)}), seed ${code(String(scenario.seed))}, ` +
      `run ${scenario.repeat}, ${duration(scenario.durationMs)}, run directory ${code(scenario.runDir)}.`,
    '',
  );
  if (scenario.reproduction) out.push(`**A replay of a failing run:** ${text(describeReproduction(scenario.reproduction))}.`, '');
}

function details(scenario: ScenarioReport, label: string, out: string[]): void {
  detailsOpening(scenario, label, out);
  queueSettings(scenario, out);
  if (scenario.invariants.length > 0) {
    out.push('#### Invariants', '', row(['Invariant', 'Holds', 'Statement', 'Evidence']), row(['---', '---', '---', '---']));
    for (const v of scenario.invariants) {
      out.push(row([code(v.id), VERDICT_MARK[v.status], text(v.statement), evidenceCell(v)]));
    }
    out.push('');
  }
  if (scenario.faults.length > 0 || scenario.worldFaults.length > 0) {
    out.push('#### Faults', '', row(['Fault', 'Where', 'Action', 'Limited to', 'Hits', 'Fired']), row(Array.from({ length: 6 }, () => '---')));
    for (const f of scenario.faults) {
      const where = Object.entries(f.where).map(([key, value]) => code(`${key}=${String(value)}`));
      out.push(row([code(f.id), code(f.point), code(f.action), where.length > 0 ? where.join(', ') : '—', String(f.hits), String(f.fired)]));
    }
    for (const f of scenario.worldFaults) {
      out.push(row([`world #${f.id}`, 'world', code(f.action), f.match !== '' ? code(f.match) : 'any call', '—', String(f.fired)]));
    }
    out.push('');
  }
  if (scenario.recovery.length > 0) {
    out.push(
      '#### Recovery',
      '',
      row(['Process', 'Killed at', 'Point', 'Job', 'Reclaimed after', 'Settled after']),
      row(Array.from({ length: 6 }, () => '---')),
    );
    for (const r of scenario.recovery) {
      out.push(
        row([
          code(r.process),
          r.killedAt,
          r.point !== null ? code(r.point) : '—',
          r.jobId !== null ? code(r.jobId) : '—',
          r.killToReclaimMs !== null ? duration(r.killToReclaimMs) : 'never',
          r.killToSettledMs !== null ? duration(r.killToSettledMs) : 'never',
        ]),
      );
    }
    out.push('');
  }
  if (scenario.jobs.length > 0) {
    out.push('#### Jobs', '');
    for (const job of scenario.jobs) jobDetails(job, out);
  }
  if (scenario.timeline.length > 0) {
    const lines = scenario.timeline.map((e) => `${e.at} ${e.kind.padEnd(17)} ${(e.process ?? '-').padEnd(8)} ${e.detail}`);
    out.push('#### Timeline', '', ...fence(lines.join('\n'), 'text'), '');
  }
  out.push(
    '#### Artefacts',
    '',
    `- store ${code(scenario.artefacts.store)}`,
    `- ledger ${code(scenario.artefacts.ledger)}`,
    ...scenario.artefacts.logs.map((log) => `- log ${code(log)}`),
    '',
    '**Replay:**',
    '',
    ...fence(scenario.replay, 'sh'),
    '',
    '</details>',
    '',
  );
}

function jobDetails(job: JobReport, out: string[]): void {
  const expected = `${text(job.expected.status)}${job.expected.reason !== undefined ? ` (reason matching ${code(job.expected.reason)})` : ''}`;
  const actual = `${text(job.actual.status)}${job.actual.reason !== null ? ` (${text(job.actual.reason)})` : ''}`;
  out.push(
    `**Job ${jobName(job.id)}** ${code(job.key)} ${job.matches ? '✅' : '❌'}: expected ` +
      `${expected}, ended ${actual}; attempts ${job.attempts}/${job.maxAttempts}.`,
    '',
  );
  if (job.duplicatedEffects.length > 0) {
    out.push(`Duplicated effects: ${job.duplicatedEffects.map((d) => `${code(d.tool)} ×${d.times} (${code(d.key)})`).join(', ')}.`, '');
  }
  if (!job.located) out.push('⚠️ Its life could not be rebuilt from the history by its id.', '');
  if (job.history.length > 0) out.push(...fence(job.history.join('\n'), 'text'), '');
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function row(cells: readonly string[]): string {
  // GFM splits a row on every unescaped pipe, code spans included; `\|` is a literal pipe in either.
  return `| ${cells.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |`;
}

// Prose: one line, with the characters that would start emphasis, links, code or HTML escaped.
function text(value: string): string {
  return visible(oneLine(value))
    .replace(/[\\`*_[\]~<>&]/g, (c) => `\\${c}`)
    .replace(/^([#+=-])/, '\\$1');
}

// An identifier in a code span, whose delimiter is longer than any run of backticks inside it.
/** A job as a line names it: its id (any text a queue uses, so in code), or that the queue holds none. */
function jobName(id: string | null): string {
  return id === null ? '(no job in the queue)' : code(id);
}

function code(value: string): string {
  const content = visible(oneLine(value));
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

// A code block, fenced with more backticks than any run inside it, so no content can close it early.
function fence(content: string, lang: string, indent = ''): string[] {
  const body = visible(content);
  const longest = Math.max(0, ...(body.match(/`{3,}/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return [`${indent}${ticks}${lang}`, ...body.split(/\r\n|\r|\n/).map((line) => `${indent}${line}`), `${indent}${ticks}`];
}

// For HTML elements (<summary>), where Markdown escapes do not apply.
function html(value: string): string {
  return visible(oneLine(value)).replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]};`);
}

function oneLine(value: string): string {
  return value.replace(/\s*[\r\n]+\s*/g, ' ');
}

const visible = visibleText;
