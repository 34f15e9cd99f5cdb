import { join } from 'node:path';
import { EXIT, type ExitCode } from '../kernel/errors.js';
import { broken, type ExploreResult, type ExploreRunEvent } from './explore.js';

/*
 * What `queue-drill explore` prints: a line per run as it ends (on stderr), then
 * its findings and its summary (on stdout), the summary last. A run cut off by
 * the time budget is said as cut off, never as ok; a catch whose rerun broke
 * nothing is said as flaky, with both runs, never as a counterexample.
 */

/** The line for one run of a lane, as it ended. */
export function runLine({ lane, run, report, shrinking, cutOff }: ExploreRunEvent): string {
  const head = `lane ${lane} ${shrinking ? 'shrink' : 'run'} ${run}:`;
  const seconds = `${(report.durationMs / 1000).toFixed(1)}s`;
  if (cutOff !== null) return `${head} cut off by ${cutOff} ${seconds} in: judged not at all, not counted\n`;
  const found = broken(report);
  const faults = report.faults.length + report.worldFaults.length;
  const fired = [...report.faults, ...report.worldFaults].filter((f) => f.fired > 0).length;
  const verdict =
    found.length > 0 ? `VIOLATION ${found.join(', ')}` : report.verdict === 'inconclusive' ? 'inconclusive (the machine starved it)' : 'ok';
  return `${head} ${verdict} (${fired}/${faults} fault(s) fired, ${report.jobs.length} job(s), ${seconds})\n`;
}

/** The findings, then the summary line and where things were written: the last lines explore prints. */
export function exploreSummary(result: ExploreResult, seed: number): string {
  const lines: string[] = [];
  for (const c of result.counterexamples) {
    lines.push(
      `counterexample (lane ${c.lane}, seed ${c.seed}, shrunk ${c.shrinks} times to ${c.faults} fault(s)): breaks ${c.broken.join(', ')}`,
      `  ${c.file}`,
      `  replay: ${c.replay}`,
    );
  }
  for (const f of result.flaky) {
    lines.push(
      `flaky (lane ${f.lane}, seed ${f.seed}, shrunk ${f.shrinks} times to ${f.faults} fault(s)): ` +
        `a run broke ${f.caught.broken.join(', ')}, and its rerun broke nothing (${f.rerun.verdict})`,
      `  the run that broke it: ${join(f.caught.runDir, 'scenario-report.json')}`,
      `  its rerun: ${join(f.rerun.runDir, 'scenario-report.json')}`,
      `  ${f.file}`,
      `  replay: ${f.replay}`,
    );
  }
  const flaky = result.flaky.length > 0 ? `, ${result.flaky.length} flaky finding(s) (broke once, not on a rerun)` : '';
  const cut = result.cutOff > 0 ? `; ${result.cutOff} run(s) cut off, not counted` : '';
  const stopped = result.interrupted ? ` (stopped by the time budget or a signal${cut})` : '';
  const vacuous = result.vacuous > 0 ? ` (${result.vacuous} run(s) with a fault that never fired)` : '';
  const starved = result.inconclusive > 0 ? ` (${result.inconclusive} run(s) the machine starved past judging)` : '';
  lines.push(
    `explore: ${result.runs} schedule(s) in ${(result.durationMs / 1000).toFixed(1)}s, ${result.counterexamples.length} violation(s)` +
      `${flaky}${stopped}, seed ${seed}${vacuous}${starved}`,
    result.out === null ? 'nothing found, nothing written' : `written to ${result.out}`,
  );
  return `${lines.map((line) => `${line}\n`).join('')}`;
}

/**
 * The exit code of an explore: 3 when a signal stopped it; 1 when it found a
 * counterexample or a flaky finding (a run broke an invariant either way, as
 * compare's flaky cell fails the matrix); else 0.
 */
export function exploreExitCode(result: ExploreResult, signalled: boolean): ExitCode {
  if (signalled) return EXIT.harnessFailed;
  return result.counterexamples.length + result.flaky.length > 0 ? EXIT.violated : EXIT.ok;
}
