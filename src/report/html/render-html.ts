import { baselineLines } from '../baseline-lines.js';
import { failuresFirst } from '../failures-first.js';
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
  lanesText,
  lastAttemptText,
  starvationText,
  timeScaleText,
} from '../starvation-lines.js';
import { countsLine, interruptionHeadline, plannedRuns } from '../summary-line.js';
import { brokeFirst } from './broke-first.js';
import { escapeHtml as h } from './escape.js';
import { evidenceTargets, worstStarvedBand } from './evidence-links.js';
import { jobHistories } from './job-history.js';
import { logLink, logsLine } from './log-links.js';
import { PAGE_SCRIPT, PAGE_STYLE } from './page-assets.js';
import { type ScenarioView, scenarioView } from './scenario-view.js';
import { HATCH_DEFS, legendSvg, timelineSvg } from './timeline-svg.js';
import { VERDICT_WORD } from './verdict-word.js';

/*
 * report.html: the report as a person decides from it, in one file that needs
 * nothing else (no network, no fonts, no scripts from elsewhere), to open
 * offline or attach to a CI run. A summary first (the counts, the seed, the
 * time scale and how it was chosen, the command to copy), then what broke
 * first in each scenario that did not pass, then a row per scenario with why
 * it did not pass (never blank), failures first (then starved runs, then
 * vacuous ones), then each scenario in that order: every earlier attempt when
 * it ran again, the broken invariants with their evidence linked to the marks
 * on the timeline, its timeline (counted from the producers' release), every
 * job's history as text linked both ways to the marks, how each job ended
 * against what was expected, its faults and its logs as links. A scenario's
 * anchor is its place in the report, whatever order the page lists it in
 * (compare.html links to it). The machine's load is
 * drawn where it happened: each span a process was starved is a hatched band
 * in its lane, and an inconclusive scenario lists what starvation explains.
 */

/** The anchor of a scenario's section: its place in the report, from 1 (a comparison links to it). */
export function anchorOf(index: number): string {
  return `scenario-${index + 1}`;
}

function copyable(command: string): string {
  return `<div class="cmd"><code>${h(command)}</code><button type="button" class="copy" data-copy="${h(command)}">copy</button></div>`;
}

/** Why a scenario did not pass, in its row of the summary (failure-reason.ts); '-' for a pass. */
function brokeCell(view: ScenarioView): string {
  return view.reason !== null ? `<span class="reason">${h(view.reason.text)}</span>` : '-';
}

/** A verdict reached on a retry, in the summary: the attempts the machine starved before it. */
function retriedNote(scenario: ScenarioReport): string {
  const earlier = scenario.earlierAttempts ?? [];
  if (earlier.length === 0) return '';
  return ` <span class="retried">at ×${scenario.timeScale}, after ${h(earlier.map((a) => `${a.verdict} at ×${a.timeScale}`).join(', '))}</span>`;
}

function summaryTable(report: DrillReport, views: readonly ScenarioView[]): string {
  const runs = allRuns(report);
  const rows = views.map((view) => {
    const { scenario } = view;
    const fired = scenario.faults.filter((f) => f.fired > 0).length + scenario.worldFaults.filter((f) => f.fired > 0).length;
    const armed = scenario.faults.length + scenario.worldFaults.length;
    return (
      `<tr class="v-${scenario.verdict}"><td><a href="#${anchorOf(view.index)}">${h(view.label)}</a></td>` +
      `<td><span class="verdict">${VERDICT_WORD[scenario.verdict]}</span>${retriedNote(scenario)}</td><td>${brokeCell(view)}</td>` +
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
  const scale = [timeScaleText(report), lanesText(report)].filter((line) => line !== null).join(', ');
  return (
    `<header><h1>queue-drill: ${h(countsLine(report.summary))}</h1>` +
    (interrupted !== null ? `<p class="interrupted"><strong>${h(interrupted)}</strong>.</p>` : '') +
    (starved !== null ? `<p class="starved">${h(starved.charAt(0).toUpperCase() + starved.slice(1))}.</p>` : '') +
    `<p>Queue <code>${h(report.queue)}</code>, seed <code>${report.seed}</code>, ${h(report.startedAt)}, ` +
    `${(report.durationMs / 1000).toFixed(1)} s, exit code ${report.exitCode}${scale !== '' ? `, ${h(scale)}` : ''}.</p>` +
    `${copyable(report.command)}${shardNote(report)}</header>`
  );
}

/** The broken invariants, each evidence line linked to the marks it names (the view's highlighted ones). */
function invariantsSection(view: ScenarioView): string {
  const { scenario, index } = view;
  const broken = scenario.invariants.filter((v) => v.status === 'broken');
  if (broken.length === 0) return '';
  // In an inconclusive scenario only liveness broke, and starvation explains it: not a finding against the queue.
  const heading = scenario.verdict === 'inconclusive' ? 'Invariants that did not hold on the starved machine' : 'Broken invariants';
  const items = broken.map((verdict) => {
    const lines = verdict.evidence.map((line) => {
      const targets = evidenceTargets(line, scenario, index);
      const links = targets.map(
        (target, n) => `<a class="to-mark" href="#${h(target)}">on the timeline${targets.length > 1 ? ` (${n + 1})` : ''}</a>`,
      );
      return `<li><span class="evidence">${h(line)}</span> ${links.join(' ')}</li>`;
    });
    return `<li><strong>${h(verdict.id)}</strong>: ${h(verdict.statement)}<ul>${lines.join('')}</ul></li>`;
  });
  return `<h3>${heading}</h3><ul class="broken">${items.join('')}</ul>`;
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

/** Each fault armed, its limits, and where it fired: the process, the time, and that process's log as a link. */
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
        `<li class="fired">${h(`${e.at} ${e.process ?? ''}: ${e.detail}`)}${logOf(e.process) ? ` ${logLink(scenario, logOf(e.process)!)}` : ''}</li>`,
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
  if (line === null) return '';
  // The band layoutScenario drew for the worst span: its timeline event's id.
  const band = worstStarvedBand(scenario, index);
  // A band, not evidence: its own class, so a link to a mark always leads to the evidence of a finding.
  const link = band !== null ? ` <a class="to-band" href="#${band}">on the timeline</a>` : '';
  return `<p class="meta starvation">Starved: ${h(line)}.${link}</p>`;
}

/** The timeline, with its length counted from the producers' release and the start-up folded before it. */
function timelineBox(view: ScenarioView): string {
  const { layout, scenario } = view;
  if (layout.lanes.length === 0) return '';
  const svg = timelineSvg(layout, view.highlighted, `timeline of ${view.label}`);
  const length =
    layout.startup > 0
      ? `${((layout.span - layout.startup) / 1000).toFixed(1)} s from the producers' release, after a start-up of ${(layout.startup / 1000).toFixed(1)} s`
      : `${(layout.span / 1000).toFixed(1)} s`;
  return (
    `<details class="timeline-box"${scenario.verdict === 'pass' ? '' : ' open'}><summary>Timeline (${layout.lanes.length} lanes, ` +
    `${length})</summary><div class="scroll">${svg}</div></details>`
  );
}

function scenarioSection(view: ScenarioView): string {
  const { scenario, index, label } = view;
  const reason = notJudgedReason(scenario);
  const notRun = scenario.verdict === 'not_supported' ? 'Not supported' : 'Not judged';
  const notJudged = reason !== null ? `<p class="problems">${notRun}: ${h(reason)}</p>` : '';
  const why = view.reason !== null ? `<p class="why"><strong>Why:</strong> ${h(view.reason.text)}</p>` : '';
  return (
    `<section id="${anchorOf(index)}" class="scenario v-${scenario.verdict}">` +
    `<h2><span class="verdict">${VERDICT_WORD[scenario.verdict]}</span> ${h(label)}</h2>${why}` +
    `<p>${h(scenario.description)}</p>${attemptsList(scenario)}` +
    `<p class="meta">Queue <code>${h(scenario.queue)}</code> (${h(scenario.queueVersion)}), seed ${scenario.seed}, ` +
    `${scenario.timeScale !== 1 ? `every duration ×${scenario.timeScale}, ` : ''}` +
    `${(scenario.durationMs / 1000).toFixed(1)} s, run directory <code>${h(scenario.runDir)}</code>.</p>${starvationNote(scenario, index)}` +
    `${copyable(scenario.replay)}${notJudged}${inconclusiveBox(scenario)}${problemsList(scenario)}${invariantsSection(view)}${timelineBox(view)}` +
    `${jobHistories(scenario, index, view.highlighted)}${jobsTable(scenario)}${faultsList(scenario)}${logsLine(scenario)}</section>`
  );
}

/** The whole page. The same report always gives the same page. */
/** Each view's section as made: a view is made again only when its scenario, place or label changed (./scenario-view.ts). */
const sections = new WeakMap<ScenarioView, string>();

function sectionOf(view: ScenarioView): string {
  const known = sections.get(view);
  if (known !== undefined) return known;
  const section = scenarioSection(view);
  sections.set(view, section);
  return section;
}

export function renderHtml(report: DrillReport): string {
  const s = report.summary;
  const views = failuresFirst(report.scenarios).map((index) => scenarioView(report, index));
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>queue-drill: ${s.passed}/${plannedRuns(s)} passed${s.inconclusive > 0 ? `, ${s.inconclusive} inconclusive` : ''}` +
      `${report.interruption ? ', interrupted' : ''}</title><style>${PAGE_STYLE}</style></head><body>`,
    HATCH_DEFS,
    header(report),
    brokeFirst(views, anchorOf),
    baselineBox(report),
    `<nav aria-label="scenarios">${summaryTable(report, views)}</nav>`,
    `<details class="legend-box"><summary>Legend</summary>${legendSvg()}</details>`,
    `<main>${views.map(sectionOf).join('')}</main>`,
    `<script>${PAGE_SCRIPT}</script></body></html>`,
    '',
  ].join('\n');
}
