import { baselineLines } from '../report/baseline-lines.js';
import { describeReproduction } from '../report/reproduction-line.js';
import type { DrillReport, ScenarioReport, ScenarioVerdict } from '../report/schema.js';
import { shardLines } from '../report/shard-lines.js';
import { drillStarvationText, INCONCLUSIVE_ADVICE, spanText } from '../report/starvation-lines.js';
import { countsLine, interruptionHeadline } from '../report/summary-line.js';
import type { WrittenReport } from '../report/write-report.js';

/** The verdicts whose own count says why their invariants were not judged. */
const SAYS_SO_ITSELF: ReadonlySet<ScenarioVerdict> = new Set(['not_judged', 'not_supported', 'interrupted', 'error']);

const MARK: Record<ScenarioReport['verdict'], string> = {
  pass: 'PASS',
  fail: 'FAIL',
  vacuous: 'VACUOUS',
  inconclusive: 'INCONCLUSIVE',
  not_judged: 'N/J',
  not_supported: 'N/S',
  interrupted: 'INTERRUPTED',
  error: 'ERROR',
};

// Where a line says the verdict in words (a scenario that did not run as asked).
const VERDICT_WORDS: Partial<Record<ScenarioReport['verdict'], string>> = { not_judged: 'not judged', not_supported: 'not supported' };

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** What a scenario found, a line each: for an inconclusive one, what starvation explains (its own lines say every finding). */
function findingLines(report: ScenarioReport): string[] {
  if (report.verdict === 'inconclusive') {
    const worst = report.starvation.worst;
    return [
      `inconclusive, the machine starved the drill${worst !== null ? `: worst span ${spanText(worst)}` : ''}; ${INCONCLUSIVE_ADVICE}`,
      ...(report.inconclusive ?? []),
    ];
  }
  const broken = report.invariants.filter((v) => v.status === 'broken').map((v) => v.id);
  return [
    ...(broken.length > 0 ? [`broke: ${broken.join(', ')}`] : []),
    ...(report.expectations.length > 0 ? [`${report.expectations.length} job(s) ended unexpectedly`] : []),
    ...report.unfired,
    ...report.nothingJudged,
    ...report.unjudgedChecks.map((line) => `not judged: ${line}`),
    ...(report.error ? [report.error] : []),
    ...(report.interrupted !== null ? [`not judged: ${report.interrupted}`] : []),
  ];
}

/** How the machine starved a scenario that still reached a verdict of its own, and a time scale other than 1, in a few words; '' when neither. */
function conditions(report: ScenarioReport): string {
  const worst = report.starvation.worst;
  const starved = worst !== null && report.verdict !== 'inconclusive' ? `  starved ${worst.ms} ms (${worst.process})` : '';
  return `${starved}${report.timeScale !== 1 ? `  time ×${report.timeScale}` : ''}`;
}

/** One line per finished scenario: verdict, name, time, faults fired, how its jobs ended, and what broke. */
export function scenarioLine(report: ScenarioReport, index: number, total: number): string {
  const notRun = report.notSupported ?? report.notJudged;
  if (notRun !== null) return `[${index}/${total}] ${MARK[report.verdict].padEnd(7)} ${report.name}  ${VERDICT_WORDS[report.verdict]}: ${notRun}`;
  const fired = report.faults.filter((f) => f.fired > 0).length + report.worldFaults.filter((f) => f.fired > 0).length;
  const armed = report.faults.length + report.worldFaults.length;
  const ends = new Map<string, number>();
  for (const job of report.jobs) ends.set(job.actual.status, (ends.get(job.actual.status) ?? 0) + 1);
  const jobs = `${[...ends].map(([status, n]) => `${n} ${status}`).join(', ')}${report.interrupted !== null ? ' when stopped' : ''}`;
  // An interrupted scenario's invariants are all not judged, which its own line says.
  const notJudged = report.interrupted !== null ? 0 : report.invariants.filter((v) => v.status === 'not_judged').length;
  const why = findingLines(report);
  // A replay says whether it reproduced, pass or fail: a replay that passed where the original failed did not.
  const reproduction = report.reproduction ? `\n        ${describeReproduction(report.reproduction)}` : '';
  return (
    `[${index}/${total}] ${MARK[report.verdict].padEnd(7)} ${report.name}  ${seconds(report.durationMs)}  faults ${fired}/${armed} fired  jobs: ` +
    `${jobs}${notJudged > 0 ? `  ${notJudged} not judged` : ''}${conditions(report)}` +
    `${why.length > 0 ? `\n        ${why.join('\n        ')}\n        replay: ${report.replay}` : ''}${reproduction}`
  );
}

/** The baseline's lines for the summary, or nothing when the run had none. */
function baselineText(report: DrillReport): string {
  if (!report.baseline) return '';
  const { head, regressions, others } = baselineLines(report.baseline);
  return `${head}\n${[...regressions.map((line) => `  REGRESSION ${line}`), ...others.map((line) => `  ${line}`)].map((line) => `${line}\n`).join('')}`;
}

/** A shard's share of the drill, or the shards a merge joined; nothing for a drill run whole. */
function shardText(report: DrillReport): string {
  const lines = shardLines(report);
  return lines ? [lines.head, ...lines.shards.map((line) => `  ${line}`)].map((line) => `${line}\n`).join('') : '';
}

/**
 * Progress for people and for CI: on a terminal a live line while a scenario
 * runs, replaced by its result; elsewhere plain lines only, one per scenario.
 */
export function progressPrinter(stream: NodeJS.WritableStream, options: { live: boolean }) {
  let pending = false;
  const running = new Set<string>();
  const clear = () => {
    if (pending) stream.write('\r\x1b[2K');
    pending = false;
  };
  return {
    onScenario(
      event: { phase: 'start'; name: string; index: number; total: number } | { phase: 'done'; report: ScenarioReport; index: number; total: number },
    ): void {
      if (event.phase === 'start') running.add(event.name);
      else running.delete(event.report.name);
      clear();
      if (event.phase === 'done') stream.write(`${scenarioLine(event.report, event.index, event.total)}\n`);
      if (options.live && running.size > 0) {
        stream.write(`running ${[...running].join(', ')}…`);
        pending = true;
      }
      return;
    },
    /** The drill's counts, then every file writeReport wrote for a view, in the order it wrote them (the registry's). */
    summary(report: DrillReport, written: WrittenReport<string>): void {
      clear();
      // Only the verdicts of scenarios that ran to rest: one not judged, not supported, interrupted or ended by the harness's
      // error says so in its own count (on SQLite the six a file queue cannot run are not '90 verdicts the queue cannot give').
      const unjudged = report.scenarios
        .filter((scenario) => !SAYS_SO_ITSELF.has(scenario.verdict))
        .flatMap((scenario) => scenario.invariants)
        .filter((v) => v.status === 'not_judged').length;
      const notJudged =
        unjudged > 0 ? `; ${unjudged} invariant verdict${unjudged === 1 ? '' : 's'} not judged (the queue cannot give their evidence)` : '';
      const interrupted = interruptionHeadline(report);
      const starved = drillStarvationText(report);
      stream.write(
        `\n${interrupted !== null ? `${interrupted}\n` : ''}` +
          `${countsLine(report.summary)} in ${seconds(report.durationMs)} (seed ${report.seed})${notJudged}\n` +
          `${starved !== null ? `${starved}\n` : ''}` +
          shardText(report) +
          baselineText(report) +
          `report: ${Object.values(written).join('\n        ')}\n`,
      );
    },
  };
}
