/**
 * An abort signal for a long-running child process: the first SIGTERM or
 * SIGINT asks it to finish what it holds and stop; a second one stops it now.
 */
export function stopOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    // The signal's name is the abort's reason, so a report can say what stopped it.
    stop.abort(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: stop.signal,
    dispose: () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    },
  };
}
