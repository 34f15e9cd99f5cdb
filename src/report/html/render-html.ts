import { baselineLines } from '../baseline-lines.js';
import { notJudgedReason } from '../not-judged-reason.js';
import { describeReproduction } from '../reproduction-line.js';
import { faultLimits } from '../scenario-facts.js';
import { allRuns, scenarioLabel } from '../scenario-label.js';
import type { DrillReport, ScenarioReport } from '../schema.js';
import { shardLines } from '../shard-lines.js';
import {
  drillStarvationText,
  earlierAttemptText,
  INCONCLUSIVE_ADVICE,
  INCONCLUSIVE_MEANING,
  lastAttemptText,
  starvationText,
  timeScaleText,
} from '../starvation-lines.js';
import { countsLine, interruptionHeadline, plannedRuns } from '../summary-line.js';
import { escapeHtml as h } from './escape.js';
import { evidenceTargets } from './evidence-links.js';
import { layoutScenario } from './lanes.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './page-assets.js';
import { HATCH_DEFS, legendSvg, timelineSvg } from './timeline-svg.js';

/*
 * report.html: the report as a person decides from it, in one file that needs
 * nothing else (no network, no fonts, no scripts from elsewhere), to open
 * offline or attach to a CI run. A summary first (verdicts, what broke, the
 * seed, the time scale and how it was chosen, the replay commands to copy),
 * then each scenario: every earlier attempt when it ran again, its timeline, the
 * broken invariants with their evidence linked to the marks on the timeline,
 * and how each job ended against what was expected. The machine's load is
 * drawn where it happened: each span a process was starved is a hatched band
 * in its lane, and an inconclusive scenario lists what starvation explains.
 */

const VERDICT_WORD: Record<ScenarioReport['verdict'], string> = {
  pass: 'PASS',
  fail: 'FAIL',
  vacuous: 'VACUOUS',
  inconclusive: 'INCONCLUSIVE',
  not_judged: 'NOT JUDGED',
  not_supported: 'NOT SUPPORTED',
  interrupted: 'INTERRUPTED',
  error: 'ERROR',
};

/** The anchor of a scenario's section: its place in the report, from 1 (a comparison links to it). */
export function anchorOf(index: number): string {
  return `scenario-${index + 1}`;
}

function copyable(command: string): string {
  return `<div class="cmd"><code>${h(command)}</code><button type="button" class="copy" data-copy="${h(command)}">copy</button></div>`;
}

/** What broke, in a row of the summary; in an inconclusive scenario what did not hold is starvation's doing, and says so. */
function brokeCell(scenario: ScenarioReport, broken: readonly string[]): string {
  if (broken.length === 0) return scenario.verdict === 'inconclusive' ? 'nothing (starved)' : '-';
  return `${h(broken.join(', '))}${scenario.verdict === 'inconclusive' ? ' (not held on the starved machine)' : ''}`;
}

/** A verdict reached on a retry, in the summary: the attempts the machine starved before it. */
function retriedNote(scenario: ScenarioReport): string {
  const earlier = scenario.earlierAttempts ?? [];
  if (earlier.length === 0) return '';
  return ` <span class="retried">at ×${scenario.timeScale}, after ${h(earlier.map((a) => `${a.verdict} at ×${a.timeScale}`).join(', '))}</span>`;
}

function summaryTable(report: DrillReport): string {
  const runs = allRuns(report);
  const rows = report.scenarios.map((scenario, i) => {
    const broken = scenario.invariants.filter((v) => v.status === 'broken').map((v) => v.id);
    const fired = scenario.faults.filter((f) => f.fired > 0).length + scenario.worldFaults.filter((f) => f.fired > 0).length;
    const armed = scenario.faults.length + scenario.worldFaults.length;
    return (
      `<tr class="v-${scenario.verdict}"><td><a href="#${anchorOf(i)}">${h(scenarioLabel(scenario, runs))}</a></td>` +
      `<td><span class="verdict">${VERDICT_WORD[scenario.verdict]}</span>${retriedNote(scenario)}</td><td>${brokeCell(scenario, broken)}</td>` +
      `<td>${fired}/${armed}</td><td>${(scenario.durationMs / 1000).toFixed(1)} s</td></tr>`
    );
  });
  // A run the interruption kept from starting is a row too: what the drill did not do is part of what it found.
  const pending = report.interruption?.unfinished ? 'NOT JUDGED YET' : 'NEVER STARTED';
  const notStarted = (report.interruption?.notStarted ?? []).map(
    (run) =>
      `<tr class="v-not-started"><td>${h(scenarioLabel(run, runs))}</td><td><span class="verdict">${pending}</span></td><td>-</td><td>-</td><td>-</td></tr>`,
  );
  return (
    '<table class="summary"><thead><tr><th>scenario</th><th>verdict</th><th>broke</th><th>faults fired</th><th>time</th></tr></thead>' +
    `<tbody>${[...rows, ...notStarted].join('')}</tbody></table>`
  );
}

function baselineBox(report: DrillReport): string {
  if (!report.baseline) return '';
  const { head, regressions, others } = baselineLines(report.baseline);
  const items = [
    ...regressions.map((line) => `<li class="regression"><strong>regression</strong>: ${h(line)}</li>`),
    ...others.map((line) => `<li>${h(line)}</li>`),
  ];
  const list = items.length > 0 ? `<ul>${items.join('')}</ul>` : '';
  return `<section class="baseline${regressions.length > 0 ? ' v-fail' : ''}"><h2>${h(head)}</h2>${list}</section>`;
}

/** Which share of the drill this is, or which shards were merged into it. */
function shardNote(report: DrillReport): string {
  const lines = shardLines(report);
  if (!lines) return '';
  return `<p class="shard">${h(lines.head)}</p>${lines.shards.length > 0 ? `<ul>${lines.shards.map((line) => `<li>${h(line)}</li>`).join('')}</ul>` : ''}`;
}

function header(report: DrillReport): string {
  const interrupted = interruptionHeadline(report);
  const starved = drillStarvationText(report);
  const scale = timeScaleText(report);
  return (
    `<header><h1>queue-drill: ${h(countsLine(report.summary))}</h1>` +
    (interrupted !== null ? `<p class="interrupted"><strong>${h(interrupted)}</strong>.</p>` : '') +
    (starved !== null ? `<p class="starved">${h(starved.charAt(0).toUpperCase() + starved.slice(1))}.</p>` : '') +
    `<p>Queue <code>${h(report.queue)}</code>, seed <code>${report.seed}</code>, ${h(report.startedAt)}, ` +
    `${(report.durationMs / 1000).toFixed(1)} s, exit code ${report.exitCode}${scale !== null ? `, ${h(scale)}` : ''}.</p>` +
    `${copyable(report.command)}${shardNote(report)}</header>`
  );
}

function invariantsSection(scenario: ScenarioReport, index: number): { html: string; highlighted: Set<string> } {
  const highlighted = new Set<string>();
  const broken = scenario.invariants.filter((v) => v.status === 'broken');
  if (broken.length === 0) return { html: '', highlighted };
  // In an inconclusive scenario only liveness broke, and starvation explains it: not a finding against the queue.
  const heading = scenario.verdict === 'inconclusive' ? 'Invariants that did not hold on the starved machine' : 'Broken invariants';
  const items = broken.map((verdict) => {
    const lines = verdict.evidence.map((line) => {
      const targets = evidenceTargets(line, scenario, index);
      for (const target of targets) highlighted.add(target);
      const links = targets.map((target, n) => `<a class="to-mark" href="#${target}">on the timeline${targets.length > 1 ? ` (${n + 1})` : ''}</a>`);
      return `<li><span class="evidence">${h(line)}</span> ${links.join(' ')}</li>`;
    });
    return `<li><strong>${h(verdict.id)}</strong>: ${h(verdict.statement)}<ul>${lines.join('')}</ul></li>`;
  });
  return { html: `<h3>${heading}</h3><ul class="broken">${items.join('')}</ul>`, highlighted };
}

function jobsTable(scenario: ScenarioReport): string {
  if (scenario.jobs.length === 0) return '';
  const stopped = scenario.interrupted !== null;
  const rows = scenario.jobs.map((job) => {
    const expected = `${job.expected.status}${job.expected.reason ? ` /${job.expected.reason}/` : ''}`;
    const verdict = stopped ? 'where it stood (not judged)' : job.matches ? 'as expected' : '<strong>not as expected</strong>';
    const actual = `${job.actual.status}${job.actual.reason ? `: ${job.actual.reason}` : ''}`;
    const duplicates = job.duplicatedEffects.map((d) => `${d.tool} ×${d.times}`).join(', ') || '-';
    return (
      `<tr class="${job.matches || stopped ? 'ok' : 'bad'}"><td>${h(job.id ?? 'missing')}</td><td>${h(expected)}</td><td>${h(actual)}</td>` +
      `<td>${job.attempts}/${job.maxAttempts}</td><td>${h(duplicates)}</td><td>${verdict}</td></tr>`
    );
  });
  return (
    '<h3>Jobs</h3><div class="wide"><table><thead><tr>' +
    '<th>job</th><th>expected</th><th>actual</th><th>attempts</th><th>duplicated effects</th><th></th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table></div>`
  );
}

/** Each fault armed, its limits, and where it fired: the process, the time, and that process's log. */
function faultsList(scenario: ScenarioReport): string {
  const fired = scenario.timeline.filter((e) => e.kind === 'fault-fired');
  // A process `w1#2` logs to `w1.2.log` in its scenario's directory (listed by name alone, or with a path).
  const logOf = (process: string | undefined) => {
    const name = process === undefined ? undefined : `${process.replace('#', '.')}.log`;
    return scenario.artefacts.logs.find((log) => name !== undefined && (log === name || log.endsWith(`/${name}`)));
  };
  const items = [
    ...scenario.faults.map(
      (f) => `<li>${h(`${f.id}: ${f.action} at ${f.point} (${faultLimits(f).join(', ')}): ${f.fired} fired of ${f.hits} hits`)}</li>`,
    ),
    ...scenario.worldFaults.map((f) => `<li>${h(`world #${f.id}: ${f.action} on ${f.match} (at most ${f.times}): fired ${f.fired} times`)}</li>`),
    ...fired.map(
      (e) =>
        `<li class="fired">${h(`${e.at} ${e.process ?? ''}: ${e.detail}`)}${logOf(e.process) ? ` <code>${h(logOf(e.process)!)}</code>` : ''}</li>`,
    ),
  ];
  return items.length > 0 ? `<h3>Faults</h3><ul class="faults">${items.join('')}</ul>` : '';
}

function problemsList(scenario: ScenarioReport): string {
  const lines = [
    ...(scenario.interrupted !== null ? [`interrupted, so not judged: ${scenario.interrupted}`] : []),
    ...scenario.expectations,
    ...scenario.unfired,
    ...scenario.nothingJudged,
    ...(scenario.error ? [scenario.error] : []),
  ];
  const reproduction = scenario.reproduction ? [describeReproduction(scenario.reproduction)] : [];
  const all = [...reproduction, ...lines];
  return all.length > 0 ? `<ul class="problems">${all.map((line) => `<li>${h(line)}</li>`).join('')}</ul>` : '';
}

/** Why an inconclusive scenario is neither a pass nor a failure: each finding with the starved span that explains it. */
function inconclusiveBox(scenario: ScenarioReport): string {
  if (scenario.verdict !== 'inconclusive') return '';
  const lines = (scenario.inconclusive ?? []).map((line) => `<li>${h(line)}</li>`);
  return (
    `<div class="inconclusive"><h3>Inconclusive: ${h(INCONCLUSIVE_MEANING)}</h3><p>To judge it, ${h(INCONCLUSIVE_ADVICE)}.</p>` +
    `${lines.length > 0 ? `<ul>${lines.join('')}</ul>` : ''}</div>`
  );
}

/** Each earlier attempt of a retried scenario, then this run: no attempt hidden behind the last one's verdict; '' when it ran once. */
function attemptsList(scenario: ScenarioReport): string {
  const earlier = scenario.earlierAttempts ?? [];
  if (earlier.length === 0) return '';
  const items = earlier.map((a, i) => `<li class="v-${a.verdict}">${h(earlierAttemptText(a, i + 1, earlier.length + 1))}</li>`);
  return (
    '<h3>Every attempt</h3><p class="meta">The machine starved each earlier attempt; it ran again at twice its time scale.</p>' +
    `<ol class="attempts">${items.join('')}<li class="v-${scenario.verdict}"><strong>${h(lastAttemptText(scenario))}</strong></li></ol>`
  );
}

/** How much the machine starved a scenario, its worst span linked to its band on the timeline; '' when nothing starved it. */
function starvationNote(scenario: ScenarioReport, index: number): string {
  const line = starvationText(scenario.starvation);
  const worst = scenario.starvation.worst;
  if (line === null || worst === null) return '';
  // The band layoutScenario drew for the worst span: its timeline event's id.
  const n = scenario.timeline.findIndex((e) => e.kind === 'starved' && e.process === worst.process && e.at === worst.from);
  // A band, not evidence: its own class, so a link to a mark always leads to the evidence of a finding.
  const link = n >= 0 ? ` <a class="to-band" href="#s${index}-h${n}">on the timeline</a>` : '';
  return `<p class="meta starvation">Starved: ${h(line)}.${link}</p>`;
}

function scenarioSection(report: DrillReport, scenario: ScenarioReport, index: number): string {
  const label = scenarioLabel(scenario, allRuns(report));
  const invariants = invariantsSection(scenario, index);
  const layout = layoutScenario(scenario, index);
  const reason = notJudgedReason(scenario);
  const notRun = scenario.verdict === 'not_supported' ? 'Not supported' : 'Not judged';
  const notJudged = reason !== null ? `<p class="problems">${notRun}: ${h(reason)}</p>` : '';
  const svg = timelineSvg(layout, invariants.highlighted, `timeline of ${label}`);
  const timeline =
    layout.lanes.length > 0
      ? `<details class="timeline-box"${scenario.verdict === 'pass' ? '' : ' open'}><summary>Timeline (${layout.lanes.length} lanes, ` +
        `${(layout.span / 1000).toFixed(1)} s)</summary><div class="scroll">${svg}</div></details>`
      : '';
  return (
    `<section id="${anchorOf(index)}" class="scenario v-${scenario.verdict}">` +
    `<h2><span class="verdict">${VERDICT_WORD[scenario.verdict]}</span> ${h(label)}</h2>` +
    `<p>${h(scenario.description)}</p>${attemptsList(scenario)}` +
    `<p class="meta">Queue <code>${h(scenario.queue)}</code> (${h(scenario.queueVersion)}), seed ${scenario.seed}, ` +
    `${scenario.timeScale !== 1 ? `every duration ×${scenario.timeScale}, ` : ''}` +
    `${(scenario.durationMs / 1000).toFixed(1)} s, run directory <code>${h(scenario.runDir)}</code>.</p>${starvationNote(scenario, index)}` +
    `${copyable(scenario.replay)}${notJudged}${inconclusiveBox(scenario)}${problemsList(scenario)}${invariants.html}${timeline}` +
    `${jobsTable(scenario)}${faultsList(scenario)}</section>`
  );
}

/** The whole page. The same report always gives the same page. */
export function renderHtml(report: DrillReport): string {
  const s = report.summary;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>queue-drill: ${s.passed}/${plannedRuns(s)} passed${s.inconclusive > 0 ? `, ${s.inconclusive} inconclusive` : ''}` +
      `${report.interruption ? ', interrupted' : ''}</title><style>${PAGE_STYLE}</style></head><body>`,
    HATCH_DEFS,
    header(report),
    baselineBox(report),
    `<nav aria-label="scenarios">${summaryTable(report)}</nav>`,
    `<details class="legend-box"><summary>Legend</summary>${legendSvg()}</details>`,
    `<main>${report.scenarios.map((scenario, i) => scenarioSection(report, scenario, i)).join('')}</main>`,
    `<script>${PAGE_SCRIPT}</script></body></html>`,
    '',
  ].join('\n');
}
