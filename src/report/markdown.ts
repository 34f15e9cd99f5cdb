import { baselineLines } from './baseline-lines.js';
import { failureReason } from './failure-reason.js';
import { jobLife } from './job-life.js';
import { describeReproduction } from './reproduction-line.js';
import { faultLimits, invariantOutcomes, jobGroups, jobsConcerned } from './scenario-facts.js';
import { allRuns, scenarioLabel } from './scenario-label.js';
import type { DrillReport, JobReport, ScenarioReport, ScenarioVerdict, Verdict } from './schema.js';
import { shardLines } from './shard-lines.js';
import { drillStarvationText, INCONCLUSIVE_ADVICE, INCONCLUSIVE_MEANING, lanesText, starvationText, timeScaleText } from './starvation-lines.js';
import { countsLine, interruptionHeadline } from './summary-line.js';
import { eventfulTimeline, timelineLine } from './timeline-excerpt.js';
import { visibleText } from './visible-text.js';

/*
 * The report as a person reads it in a pull request or an issue: a summary,
 * not the whole record. First what was run and what it found (the verdict
 * table, each row saying why a scenario did not pass, the seed, the time scale and how it was chosen, the command), then what did not pass with its evidence,
 * the lives of the jobs concerned and the eventful part of its timeline, and
 * the command that replays it (an inconclusive one with what starvation
 * explains: the process and span that starved it); then each scenario in a
 * few lines: each earlier attempt when the machine starved it and it ran
 * again, what it drills, its faults with their limits, how its jobs ended
 * against what was expected and in how many attempts, how long recovery took,
 * and how much the machine starved it. The whole
 * timeline and every job's life are a click away in report.html; report.json
 * holds everything.
 *
 * Every string from the report is data, not Markdown: scenario names, reasons
 * and evidence can hold `|`, backticks or `<tag>`, and must neither break a
 * table nor inject HTML. Identifiers go in code spans, prose is escaped,
 * evidence goes in code blocks.
 */

/** Each verdict's marker, in every Markdown view (report.md, the step summary). */
export const MARKER: Record<ScenarioVerdict, string> = {
  pass: '✅',
  fail: '❌',
  vacuous: '⚠️',
  inconclusive: '⏳',
  not_judged: '➖',
  not_supported: '🚫',
  interrupted: '⏹️',
  error: '❌',
};
const WORD: Record<ScenarioVerdict, string> = {
  pass: 'pass',
  fail: 'fail',
  vacuous: 'vacuous',
  inconclusive: 'inconclusive (starved)',
  not_judged: 'not judged',
  not_supported: 'not supported',
  interrupted: 'interrupted',
  error: 'error',
};

/** How many evidence lines of one invariant, jobs' lives and timeline events a failing scenario shows before pointing to report.html. */
const EVIDENCE_LINES = 20;
const JOB_LIVES = 5;
const TIMELINE_LINES = 60;

/** The report as GitHub-flavoured Markdown. */
export function renderMarkdown(report: DrillReport): string {
  const out: string[] = [];
  const runs = allRuns(report);
  header(report, out);
  if (report.interruption) interruptionSection(report, out);
  if (report.baseline) baselineSection(report.baseline, out);
  scenarioTable(report, out);
  const notPassed = report.scenarios.filter((s) => s.verdict !== 'pass');
  if (notPassed.length > 0) {
    out.push('## What did not pass', '');
    for (const scenario of notPassed) problems(scenario, scenarioLabel(scenario, runs), out);
  }
  if (report.scenarios.length > 0) {
    out.push('## Every scenario', '');
    for (const scenario of report.scenarios) scenarioSummary(scenario, scenarioLabel(scenario, runs), out);
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function headline(report: DrillReport): string {
  const { summary } = report;
  const interrupted = interruptionHeadline(report);
  if (interrupted !== null) return `⏹️ ${interrupted}; ${countsLine(summary)}`;
  const plural = (n: number) => `scenario${n === 1 ? '' : 's'}`;
  if (summary.scenarios > 0 && summary.passed === summary.scenarios) return `✅ all ${summary.scenarios} ${plural(summary.scenarios)} passed`;
  const counts = [
    summary.failed > 0 ? `${summary.failed} failed` : null,
    summary.vacuous > 0 ? `${summary.vacuous} vacuous` : null,
    summary.inconclusive > 0 ? `${summary.inconclusive} inconclusive (the machine starved ${summary.inconclusive === 1 ? 'it' : 'them'})` : null,
    summary.notJudged > 0 ? `${summary.notJudged} not judged (the queue cannot run ${summary.notJudged === 1 ? 'it' : 'them'} as asked)` : null,
    summary.errors > 0 ? `${summary.errors} error${summary.errors === 1 ? '' : 's'}` : null,
  ].filter((part) => part !== null);
  const mark = summary.failed + summary.errors > 0 ? '❌' : report.exitCode === 0 ? '✅' : report.exitCode === 4 ? '⏳' : '⚠️';
  return `${mark} ${summary.passed} of ${summary.scenarios} ${plural(summary.scenarios)} passed${counts.length > 0 ? `: ${counts.join(', ')}` : ''}`;
}

function header(report: DrillReport, out: string[]): void {
  const { summary } = report;
  out.push(
    '# queue-drill recovery report',
    '',
    `**${text(headline(report))}** (exit code ${report.exitCode})`,
    '',
    ...fence(report.command, 'sh'),
    '',
    `- Queue: ${code(report.queue)} · seed ${code(String(report.seed))} · scenarios file ${code(report.file)}${scaleText(report)}`,
    `- Started ${report.startedAt}, finished ${report.finishedAt} (${duration(report.durationMs)})`,
    `- queue-drill ${text(report.toolVersion)}, report version ${report.version}`,
    `- Invariant verdicts: ${summary.invariants.held} held, ${summary.invariants.broken} broken, ${summary.invariants.notJudged} not judged`,
    ...starvationBullets(report),
    ...shardBullets(report),
    '- The whole report: [report.html](report.html), each scenario with its timeline (a lane per process) and every job’s life; ' +
      '[report.json](report.json), everything as data; [junit.xml](junit.xml) for CI',
    '',
  );
}

function interruptionSection(report: DrillReport, out: string[]): void {
  const interruption = report.interruption!;
  const runs = allRuns(report);
  const stopped = report.scenarios.filter((s) => s.verdict === 'interrupted').map((s) => code(scenarioLabel(s, runs)));
  const why = interruption.unfinished
    ? 'This report was written while the drill ran: the drill is still running, or it ended without writing its final report (killed). ' +
      'Each verdict below is final.'
    : `The drill was interrupted by ${code(interruption.by)}. What it finished is judged below; ` +
      `what it was running is not judged (a half-run proves nothing either way), and what it had not started never ran.`;
  out.push(interruption.unfinished ? '## Unfinished' : '## Interrupted', '', why, '');
  out.push(
    `- Stopped before rest (${stopped.length}): ${stopped.length > 0 ? stopped.join(', ') : 'none'}`,
    `- ${interruption.unfinished ? 'Not judged yet' : 'Never started'} (${interruption.notStarted.length}): ${
      interruption.notStarted.length > 0 ? interruption.notStarted.map((run) => code(scenarioLabel(run, runs))).join(', ') : 'none'
    }`,
    '',
  );
}

function baselineSection(baseline: NonNullable<DrillReport['baseline']>, out: string[]): void {
  const { head, regressions, others } = baselineLines(baseline);
  out.push(`## Against the baseline`, '', `**${text(head)}**`, '');
  if (regressions.length > 0) out.push(...regressions.map((line) => `- ❌ regression: ${text(line)}`), '');
  if (others.length > 0) out.push(...others.map((line) => `- ${text(line)}`), '');
}

// How the drill chose its scale, a reader needs to judge its timings (and to replay it); nothing for the scale 1 given.
function scaleText(report: DrillReport): string {
  return [timeScaleText(report), lanesText(report)]
    .filter((line) => line !== null)
    .map((line) => ` · ${text(line)}`)
    .join('');
}

// The machine's load is part of what a run found: a pass on a starved machine is worth knowing, and an inconclusive run says why.
function starvationBullets(report: DrillReport): string[] {
  const line = drillStarvationText(report);
  return line === null ? [] : [`- ${text(line.charAt(0).toUpperCase() + line.slice(1))}`];
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
  const runs = allRuns(report);
  out.push(
    row(['Scenario', 'Verdict', 'Broke', 'Fault points', 'Fired/armed', 'Jobs as expected', 'Duplicated effects', 'Recovery', 'Duration']),
    row(Array.from({ length: 9 }, () => '---')),
  );
  for (const scenario of report.scenarios) {
    out.push(
      row([
        code(scenarioLabel(scenario, runs)),
        `${MARKER[scenario.verdict]} ${WORD[scenario.verdict]}${retriedNote(scenario)}`,
        // Why it did not pass, never blank beside a verdict that is not a pass (failure-reason.ts): the row's other cells can all look fine.
        text(failureReason(scenario)?.text ?? '—'),
        scenario.faultPoints.length > 0 ? scenario.faultPoints.map(code).join(', ') : '—',
        firedOfArmed(scenario),
        jobsCell(scenario),
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

// A verdict reached on a retry says so in the table: the starved attempts before it are part of what the drill found.
function retriedNote(scenario: ScenarioReport): string {
  const earlier = scenario.earlierAttempts ?? [];
  if (earlier.length === 0) return '';
  return ` at ×${scenario.timeScale}, after ${earlier.map((a) => `${MARKER[a.verdict]} ${a.verdict} at ×${a.timeScale}`).join(', ')}`;
}

function firedOfArmed(scenario: ScenarioReport): string {
  const armed = [...scenario.faults, ...scenario.worldFaults];
  if (armed.length === 0) return '—';
  return `${armed.filter((f) => f.fired > 0).length}/${armed.length}`;
}

function jobsCell(scenario: ScenarioReport): string {
  const { jobs } = scenario;
  if (jobs.length === 0) return '—';
  // A half-run's jobs are where they stood, not where they ended: no job is held to its expectation.
  if (scenario.interrupted !== null) return `not judged: ${statusCounts(jobs)} when stopped`;
  const wrong = jobs.filter((j) => !j.matches);
  const listed = wrong.slice(0, 3).map((j) => `${jobName(j.id)} expected ${text(j.expected.status)}, got ${text(j.actual.status)}`);
  if (wrong.length > listed.length) listed.push(`${wrong.length - listed.length} more`);
  return `${jobs.length - wrong.length}/${jobs.length}${listed.length > 0 ? `: ${listed.join('; ')}` : ''}`;
}

function statusCounts(jobs: readonly JobReport[]): string {
  const counts = new Map<string, number>();
  for (const job of jobs) counts.set(job.actual.status, (counts.get(job.actual.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n} ${text(status)}`).join(', ');
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

/** What did not pass in one scenario: why, with its evidence, the lives of the jobs concerned, what happened, and its replay. */
function problems(scenario: ScenarioReport, label: string, out: string[]): void {
  out.push(`### ${MARKER[scenario.verdict]} ${code(label)}: ${WORD[scenario.verdict]}`, '');
  if (scenario.description !== '') out.push(text(scenario.description), '');
  if (scenario.error !== null) out.push('**The harness failed:**', '', ...fence(scenario.error, 'text'), '');
  if (scenario.notSupported !== null) out.push(`**Not supported: the queue lacks what this scenario needs.** ${text(scenario.notSupported)}`, '');
  if (scenario.notJudged !== null) out.push(`**Not judged: the queue cannot run this scenario as asked.** ${text(scenario.notJudged)}`, '');
  if (scenario.unjudgedChecks.length > 0) {
    out.push('**Not judged: what this scenario exists to check could not be judged on this queue.**', '');
    for (const line of scenario.unjudgedChecks) out.push(`- ${text(line)}`);
    out.push('');
  }
  if (scenario.interrupted !== null) {
    out.push(`**Interrupted, so not judged:** ${text(scenario.interrupted)}. Its jobs are shown where they stood.`, '');
  }
  if (scenario.reproduction) out.push(`**A replay of a failing run:** ${text(describeReproduction(scenario.reproduction))}.`, '');
  const attempts = attemptLines(scenario);
  if (attempts.length > 0)
    out.push('**Every attempt** (the machine starved each earlier one; it ran again at twice its time scale):', '', ...attempts, '');
  if (scenario.verdict === 'inconclusive') inconclusiveFindings(scenario, out);
  brokenInvariants(scenario, out);
  listed('**Jobs that did not end as expected:**', scenario.expectations, out);
  listed('**Faults that never fired** (the drill did not test what it claims to):', scenario.unfired, out);
  listed(
    '**Invariants that had nothing to judge where the scenario should have given them something** (the drill did not test what it claims to):',
    scenario.nothingJudged,
    out,
  );
  jobLives(scenario, out);
  timelineExcerpt(scenario, out);
  out.push('**Replay:**', '', ...fence(scenario.replay, 'sh'), '');
}

/** Why an inconclusive scenario is neither a pass nor a failure: each finding with the starved span that explains it, and the machine's load. */
function inconclusiveFindings(scenario: ScenarioReport, out: string[]): void {
  out.push(`**Inconclusive: ${text(INCONCLUSIVE_MEANING)}.** To judge it, ${text(INCONCLUSIVE_ADVICE)}.`, '');
  listed('**What starvation explains:**', scenario.inconclusive ?? [], out);
  const starved = starvationText(scenario.starvation);
  if (starved !== null) out.push(`**Starvation:** ${text(starved)}.`, '');
}

function listed(title: string, lines: readonly string[], out: string[]): void {
  if (lines.length > 0) out.push(title, '', ...lines.map((line) => `- ${text(line)}`), '');
}

function brokenInvariants(scenario: ScenarioReport, out: string[]): void {
  const broken = scenario.invariants.filter((v) => v.status === 'broken');
  if (broken.length === 0) return;
  // In an inconclusive scenario only liveness broke, and starvation explains it (above): not a finding against the queue.
  out.push(scenario.verdict === 'inconclusive' ? '**Invariants that did not hold on the starved machine:**' : '**Broken invariants:**', '');
  for (const verdict of broken) {
    out.push(`- ${code(verdict.id)}: ${text(verdict.statement)}`);
    const shown = verdict.evidence.slice(0, EVIDENCE_LINES);
    const more = verdict.evidence.length - shown.length;
    if (shown.length > 0) out.push('', ...fence([...shown, ...(more > 0 ? [`… ${more} more in report.json`] : [])].join('\n'), 'text', '  '), '');
  }
  if (out.at(-1) !== '') out.push('');
}

/** The lives of the jobs a finding is about: each that did not end as expected, else each the evidence names. */
function jobLives(scenario: ScenarioReport, out: string[]): void {
  const concerned = jobsConcerned(scenario);
  const lives = concerned;
  if (lives.length === 0) return;
  out.push('**The jobs concerned:**', '');
  for (const job of lives.slice(0, JOB_LIVES)) {
    out.push(
      `- Job ${jobName(job.id)} ${code(job.key)}: ${jobLine(job, scenario.interrupted !== null)}`,
      '',
      ...fence(jobLife(job).join('\n'), 'text', '  '),
      '',
    );
  }
  if (lives.length > JOB_LIVES) out.push(`${lives.length - JOB_LIVES} more in [report.html](report.html).`, '');
}

function timelineExcerpt(scenario: ScenarioReport, out: string[]): void {
  const events = eventfulTimeline(scenario);
  if (events.length === 0) return;
  const passed = scenario.timeline.filter((event) => event.kind === 'fault-hit').length;
  const ready = scenario.timeline.filter((event) => event.kind === 'ready').length;
  const left = [
    ...(passed > 0 ? [`the ${passed} fault points passed with nothing happening`] : []),
    ...(ready > 0 ? [`the ${ready} processes’ first lines (a slow start is a starved span)`] : []),
  ];
  const shown = events.slice(0, TIMELINE_LINES);
  out.push(
    `**What happened** (the harness’s timeline${left.length > 0 ? `, without ${left.join(' and ')}` : ''}` +
      `${events.length > shown.length ? `; the first ${shown.length} of ${events.length} events` : ''}; the whole in [report.html](report.html)):`,
    '',
    ...fence(shown.map(timelineLine).join('\n'), 'text'),
    '',
  );
}

/** One scenario in a few lines: what it drills, its faults, its jobs, its recovery, its invariants, where it ran, its replay. */
function scenarioSummary(scenario: ScenarioReport, label: string, out: string[]): void {
  out.push(`### ${MARKER[scenario.verdict]} ${code(label)}: ${WORD[scenario.verdict]}`, '');
  if (scenario.description !== '') out.push(text(scenario.description), '');
  const settings = Object.entries(scenario.queueSettings).map(([k, v]) => code(`${k}=${String(v)}`));
  const starved = starvationText(scenario.starvation);
  out.push(
    ...attemptLines(scenario),
    ...faultLines(scenario).map((line) => `- Fault ${line}`),
    ...jobGroupLines(scenario).map((line) => `- ${line}`),
    ...nextCommandLines(scenario).map((line) => `- ${line}`),
    ...recoveryLines(scenario).map((line) => `- ${line}`),
    `- Invariants: ${invariantsLine(scenario.invariants, scenario.verdict)}`,
    ...(starved !== null ? [`- Starvation: ${text(starved)}`] : []),
    `- Queue ${code(scenario.queue)} (${text(scenario.queueVersion)})${settings.length > 0 ? ` with its adapter’s options ${settings.join(', ')}` : ''}, ` +
      `seed ${code(String(scenario.seed))}, run ${scenario.repeat}${scenario.timeScale !== 1 ? `, every duration ×${scenario.timeScale}` : ''}, ` +
      `${duration(scenario.durationMs)}, run directory ${code(scenario.runDir)}`,
    ...(scenario.reproduction ? [`- Replayed a failing run: ${text(describeReproduction(scenario.reproduction))}`] : []),
    `- Replay: ${code(scenario.replay)}`,
    '',
  );
}

/**
 * Each earlier attempt of a retried scenario (its verdict, scale, run directory and the first line starvation explained), then this
 * run's: no attempt is hidden behind the last one's verdict. As list items; none when it ran once.
 */
function attemptLines(scenario: ScenarioReport): string[] {
  const earlier = scenario.earlierAttempts ?? [];
  if (earlier.length === 0) return [];
  const total = earlier.length + 1;
  const lines = earlier.map((a, i) => {
    const first = a.inconclusive?.[0];
    return (
      `- Attempt ${i + 1} of ${total}: ${MARKER[a.verdict]} ${WORD[a.verdict]} at time scale ×${a.timeScale}, ${duration(a.durationMs)}, ` +
      `run directory ${code(a.runDir)}${first !== undefined ? `: ${text(first)}` : ''}`
    );
  });
  return [
    ...lines,
    `- Attempt ${total} of ${total}, this run: ${MARKER[scenario.verdict]} ${WORD[scenario.verdict]} at time scale ×${scenario.timeScale}`,
  ];
}

/** Each fault with its action's argument, where it is limited to, its limits, and how often it fired. */
function faultLines(scenario: ScenarioReport): string[] {
  const point = scenario.faults.map(
    (f) =>
      `${code(f.id)}: ${code(f.action)} at ${code(f.point)} (${text(faultLimits(f).join(', '))}): ` +
      `fired ${f.fired} of ${f.hits} hit${f.hits === 1 ? '' : 's'}`,
  );
  // A world fault's match already says its action and where: "fail 503 on job 1 step write".
  const world = scenario.worldFaults.map(
    (f) =>
      `world #${f.id}: ${f.match !== '' ? code(f.match) : `${code(f.action)} on any call`} ` +
      `(at most ${f.times} call${f.times === 1 ? '' : 's'}): fired ${f.fired} time${f.fired === 1 ? '' : 's'}`,
  );
  return [...point, ...world];
}

/** The jobs grouped by how they ended against what was expected, and in how many attempts. */
function jobGroupLines(scenario: ScenarioReport): string[] {
  return jobGroups(scenario.jobs).map((jobs) => {
    const ids = jobs.slice(0, 8).map((job) => jobName(job.id));
    const more = jobs.length > ids.length ? ` and ${jobs.length - ids.length} more` : '';
    return `${jobs.length === 1 ? 'Job' : 'Jobs'} ${ids.join(', ')}${more}: ${jobLine(jobs[0]!, scenario.interrupted !== null)}`;
  });
}

/** What a person can do next about a job, as its life printed it (the approval a waiting job needs), while the store outlives the drill. */
function nextCommandLines(scenario: ScenarioReport): string[] {
  return scenario.jobs.flatMap((job) =>
    job.approve === null ? [] : [`Job ${jobName(job.id)} waits for a person's approval; to approve it: ${code(job.approve)}`],
  );
}

/** How one job ended against what was expected, in how many attempts, and what it applied twice. */
function jobLine(job: JobReport, stopped: boolean): string {
  const expected = `${text(job.expected.status)}${job.expected.reason !== undefined ? ` (reason matching ${code(job.expected.reason)})` : ''}`;
  const actual = `${text(job.actual.status)}${job.actual.reason !== null ? ` (${text(job.actual.reason)})` : ''}`;
  const end = stopped
    ? `stood at ${actual} when stopped (expected ${expected}; not judged)`
    : job.matches
      ? `ended ${actual} as expected ✅`
      : `expected ${expected}, ended ${actual} ❌`;
  const duplicates = job.duplicatedEffects.map((d) => `${code(d.tool)} ×${d.times}`);
  return (
    `${end}; ${job.attempts} of ${job.maxAttempts} attempt${job.maxAttempts === 1 ? '' : 's'}` +
    `${duplicates.length > 0 ? `; applied twice: ${duplicates.join(', ')}` : ''}${job.located ? '' : '; its life could not be rebuilt from the history'}`
  );
}

/** Each kill and how long the queue took to take its job back and settle it. */
function recoveryLines(scenario: ScenarioReport): string[] {
  return scenario.recovery.map((r) => {
    const where = `${code(r.process)} killed${r.point !== null ? ` at ${code(r.point)}` : ''}`;
    if (r.jobId === null) return `Recovery: ${where}, holding no job`;
    const reclaimed = r.killToReclaimMs !== null ? `taken back after ${duration(r.killToReclaimMs)}` : 'never taken back';
    const settled = r.killToSettledMs !== null ? `settled after ${duration(r.killToSettledMs)}` : 'never settled';
    return `Recovery: ${where}: job ${code(r.jobId)} ${reclaimed}, ${settled}`;
  });
}

/**
 * The invariants in one line: which broke (or, inconclusive, did not hold on a starved machine), how many held, which had nothing to
 * judge, which were not judged and why.
 */
function invariantsLine(invariants: readonly Verdict[], verdict: ScenarioVerdict): string {
  if (invariants.length === 0) return 'none judged';
  const ids = (vs: readonly Verdict[]) => vs.map((v) => code(v.id)).join(', ');
  const outcomes = invariantOutcomes(invariants);
  const broken = verdict === 'inconclusive' ? '⏳ not held on the starved machine' : '❌ broken';
  return [
    ...(outcomes.broken.length > 0 ? [`${broken}: ${ids(outcomes.broken)}`] : []),
    `${outcomes.held.length} held`,
    ...(outcomes.nothingToJudge.length > 0 ? [`nothing to judge: ${ids(outcomes.nothingToJudge)}`] : []),
    ...outcomes.notJudged.map(({ why, verdicts }) => `not judged (${text(why)}): ${ids(verdicts)}`),
  ].join('; ');
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

/** A job as a line names it: its id (any text a queue uses, so in code), or that the queue holds none. */
function jobName(id: string | null): string {
  return id === null ? '(no job in the queue)' : code(id);
}

// An identifier in a code span, whose delimiter is longer than any run of backticks inside it.
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

function oneLine(value: string): string {
  return value.replace(/\s*[\r\n]+\s*/g, ' ');
}

const visible = visibleText;
