import { EXIT } from '../kernel/errors.js';

/**
 * An abort signal for a long-running process: the first SIGTERM or SIGINT asks
 * it to finish what it holds and stop; a second one stops it now.
 *
 * With `forceAfterMs` (the harness's commands), the process also ends on its
 * own that long after the first signal, whatever is hung (a frozen queue
 * server holds a query for ever): the drill wrote its report, marked
 * unfinished, the moment the signal came (src/report/progress-report.ts), and
 * the supervisor's exit handler and the reaper take its children down.
 */
export function stopOnSignals(options: { forceAfterMs?: number; onForced?: (line: string) => void } = {}): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const stop = new AbortController();
  let forced: NodeJS.Timeout | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    // The signal's name is the abort's reason, so a report can say what stopped it.
    stop.abort(signal);
    if (options.forceAfterMs === undefined) return;
    forced = setTimeout(() => {
      options.onForced?.(`queue-drill: still stopping ${options.forceAfterMs} ms after ${signal} (something it waits on hangs): exiting now`);
      process.exit(EXIT.harnessFailed);
    }, options.forceAfterMs);
    // Only a hang keeps the process alive this long; a clean stop is not held up by the timer.
    forced.unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: stop.signal,
    dispose: () => {
      clearTimeout(forced);
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}

/** How long the harness's commands may take to stop after the first signal: an honest stop takes under 3 s here. */
export const FORCED_STOP_MS = 4_000;

/** stopOnSignals for a command that runs drills: it ends at most FORCED_STOP_MS after the first signal, saying so on stderr. */
export function harnessStopOnSignals(): ReturnType<typeof stopOnSignals> {
  return stopOnSignals({ forceAfterMs: FORCED_STOP_MS, onForced: (line) => process.stderr.write(`${line}\n`) });
}
