import { appendFileSync, readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { baselineLines } from './baseline-lines.js';
import { MARKER } from './markdown.js';
import { scenarioLabel } from './scenario-label.js';
import type { DrillReport, ScenarioReport } from './schema.js';
import { drillStarvationText, spanText, timeScaleText } from './starvation-lines.js';
import { visibleText } from './visible-text.js';

/*
 * The drill's summary for a CI job's page: GitHub Actions shows the Markdown
 * appended to $GITHUB_STEP_SUMMARY on the run's summary page, so `queue-drill
 * run` appends this there when the variable is set. Short by design (a page
 * holds every job's summary, 1 MiB each at most): the verdict counts, each
 * scenario that did not pass with why in a few words (the invariants it
 * broke; for an inconclusive one, what starvation explains and its worst
 * span), each scenario that passed only when run again after the machine
 * starved it, how much the machine starved the drill, the seed, the time
 * scale and how it was chosen, and the commands that replay the failures.
 * report.md and
 * report.html hold the rest. Every string from the report is data, escaped as
 * report.md escapes it.
 */

/** How many scenarios that did not pass the summary lists before it points at the report for the rest. */
const MAX_LISTED = 25;

/** The summary as GitHub-flavoured Markdown; `reportFile` (report.html, say) is named as where the rest is. */
export function renderStepSummary(report: DrillReport, reportFile?: string): string {
  const { summary: s } = report;
  const allPassed = s.scenarios > 0 && s.passed === s.scenarios;
  const mark = allPassed ? '✅' : s.failed + s.errors > 0 ? '❌' : report.exitCode === 4 ? '⏳' : '⚠️';
  const starved = drillStarvationText(report);
  const scale = timeScaleText(report);
  const out = [
    `### queue-drill: ${mark} ${s.passed} of ${s.scenarios} scenario${s.scenarios === 1 ? '' : 's'} passed (exit code ${report.exitCode})`,
    '',
    '| Passed | Failed | Vacuous | Inconclusive (starved) | Not judged | Errors |',
    '| --- | --- | --- | --- | --- | --- |',
    `| ${s.passed} | ${s.failed} | ${s.vacuous} | ${s.inconclusive} | ${s.notJudged} | ${s.errors} |`,
    '',
    `Queue ${code(report.queue)} · seed ${code(String(report.seed))} · ${(report.durationMs / 1000).toFixed(1)} s` +
      `${scale === null ? '' : ` · ${text(scale)}`}${reportFile === undefined ? '' : ` · the whole report: ${code(reportFile)}`}`,
    '',
    ...(starved !== null ? [`${text(starved.charAt(0).toUpperCase() + starved.slice(1))}.`, ''] : []),
  ];
  if (report.baseline) {
    const { head, regressions } = baselineLines(report.baseline);
    out.push(`**${text(head)}**`, '', ...regressions.map((line) => `- ❌ regression: ${text(line)}`), ...(regressions.length > 0 ? [''] : []));
  }
  out.push(...retriedLines(report.scenarios));
  const notPassed = report.scenarios.filter((scenario) => scenario.verdict !== 'pass');
  if (notPassed.length === 0) return `${out.join('\n')}`;
  const listed = notPassed.slice(0, MAX_LISTED);
  const more = notPassed.length - listed.length > 0 ? [`- and ${notPassed.length - listed.length} more: see the report`] : [];
  out.push('**What did not pass**', '', ...listed.map((scenario) => notPassedLine(scenario, report.scenarios)), ...more, '');
  const replays = listed.filter((scenario) => scenario.verdict !== 'not_judged').map((scenario) => scenario.replay);
  if (replays.length > 0) out.push('**Replay** (the same seed, the same queue):', '', ...fence(replays.join('\n')), '');
  return `${out.join('\n')}`;
}

/** Each scenario that passed only on a later attempt, with the attempts the machine starved before it: a pass on a retry is worth knowing. */
function retriedLines(scenarios: readonly ScenarioReport[]): string[] {
  const retried = scenarios.filter((scenario) => scenario.verdict === 'pass' && (scenario.earlierAttempts ?? []).length > 0);
  if (retried.length === 0) return [];
  const line = (scenario: ScenarioReport) => {
    const earlier = scenario.earlierAttempts!.map((a) => `${MARKER[a.verdict]} ${a.verdict} at ×${a.timeScale}`);
    return `- ${MARKER.pass} ${code(scenarioLabel(scenario, scenarios))} passed at ×${scenario.timeScale}, after ${earlier.join(', ')}`;
  };
  return ['**Passed only when run again** (the machine starved the earlier attempts):', '', ...retried.slice(0, MAX_LISTED).map(line), ''];
}

/** One scenario that did not pass: its verdict, and why in a few words. */
function notPassedLine(scenario: ScenarioReport, all: readonly ScenarioReport[]): string {
  const attempts = (scenario.earlierAttempts?.length ?? 0) + 1;
  const retried = attempts > 1 ? ` (attempt ${attempts}, at ×${scenario.timeScale})` : '';
  const head = `- ${MARKER[scenario.verdict]} ${code(scenarioLabel(scenario, all))} ${scenario.verdict}${retried}`;
  if (scenario.verdict === 'inconclusive') return `${head}: ${inconclusiveWhy(scenario)}`;
  const broken = scenario.invariants.filter((v) => v.status === 'broken').map((v) => code(v.id));
  const why = [
    ...(scenario.error !== null ? [`the harness failed: ${text(firstLine(scenario.error))}`] : []),
    ...(scenario.notJudged !== null ? [`not judged: ${text(scenario.notJudged)}`] : []),
    ...(broken.length > 0 ? [`broke ${broken.join(', ')}`] : []),
    ...(scenario.expectations.length > 0 ? [`${scenario.expectations.length} job(s) did not end as expected`] : []),
    ...scenario.unfired.map((line) => text(line)),
    ...scenario.nothingJudged.map((line) => text(line)),
  ];
  return `${head}${why.length > 0 ? `: ${why.join('; ')}` : ''}`;
}

/** Why a scenario is inconclusive, in a few words: the machine starved it (its worst span), and the first finding starvation explains. */
function inconclusiveWhy(scenario: ScenarioReport): string {
  const worst = scenario.starvation.worst;
  const lines = scenario.inconclusive ?? [];
  return [
    `the machine starved the drill${worst !== null ? `, worst span ${text(spanText(worst))}` : ''}`,
    ...(lines.length > 0 ? [text(firstLine(lines[0]!))] : []),
    ...(lines.length > 1 ? [`and ${lines.length - 1} more explained by starvation`] : []),
  ].join('; ');
}

/**
 * Appends the summary to the file $GITHUB_STEP_SUMMARY names, when it names
 * one; what is there already stays. A file that cannot be written is a
 * warning (`warn`), not a failure: the drill's verdict stands either way.
 */
export function appendStepSummary(env: NodeJS.ProcessEnv, report: DrillReport, reportFile: string | undefined, warn: (line: string) => void): void {
  const file = env.GITHUB_STEP_SUMMARY;
  if (file === undefined || file === '') return;
  try {
    appendFileSync(file, `${separator(existing(file))}${renderStepSummary(report, reportFile === undefined ? undefined : shownPath(reportFile))}\n`);
  } catch (error) {
    warn(`queue-drill: could not append the summary to GITHUB_STEP_SUMMARY (${file}): ${error instanceof Error ? error.message : String(error)}`);
  }
}

// A blank line first, so the summary starts its own block after whatever an earlier step wrote.
function separator(before: string): string {
  return before === '' ? '' : before.endsWith('\n') ? '\n' : '\n\n';
}

// A path inside the job's directory as the job's files name it (drill-runs/…); one outside it whole.
function shownPath(path: string): string {
  const inside = relative(process.cwd(), path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** The file's last bytes as text ('' when it does not exist yet), to know how the summary must start. */
function existing(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-2);
  } catch {
    return '';
  }
}

function firstLine(value: string): string {
  const line = value.split(/\r?\n/, 1)[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

// Prose: one line, with the characters that would start emphasis, links, code or HTML escaped (as report.md does).
function text(value: string): string {
  return visibleText(value.replace(/\s*[\r\n]+\s*/g, ' '))
    .replace(/[\\`*_[\]~<>&|]/g, (c) => `\\${c}`)
    .replace(/^([#+=-])/, '\\$1');
}

// An identifier in a code span whose delimiter is longer than any run of backticks inside it.
function code(value: string): string {
  const content = visibleText(value.replace(/\s*[\r\n]+\s*/g, ' '));
  const ticks = '`'.repeat(Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

// A code block fenced with more backticks than any run inside it.
function fence(content: string): string[] {
  const body = visibleText(content);
  const ticks = '`'.repeat(Math.max(3, ...(body.match(/`{3,}/g) ?? []).map((run) => run.length + 1)));
  return [`${ticks}sh`, ...body.split('\n'), ticks];
}
