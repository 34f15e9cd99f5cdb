import type { ScenarioReport, Verdict } from '../report/schema.js';
import { INVARIANTS } from './invariants/index.js';

/*
 * A drill the harness was stopped in (Ctrl-C, SIGTERM) before it reached rest
 * is a half-run: jobs were still on their way, faults still to come. Judging
 * it would claim breaches that are only unfinished work ("20 jobs ended
 * unexpectedly") and passes that proved nothing, so its entry keeps what
 * happened (each job where it stood, the faults' hits, the timeline, the
 * recovery times measured so far) and judges nothing: every invariant the
 * scenario names is not judged, saying why, and no expectation, unfired fault
 * or empty judgement is held against it.
 */

/** What stopped a drill, from its abort signal: the signal's name (SIGINT, SIGTERM) when the CLI gave it, else "an abort". */
export function abortCause(signal: AbortSignal): string {
  return typeof signal.reason === 'string' && signal.reason !== '' ? signal.reason : 'an abort';
}

/** The line a scenario's `interrupted` says: by what, how far in, and any evidence the stop left missing. */
export function interruptionLine(by: string, durationMs: number, missing: string | null): string {
  const line = `interrupted by ${by} ${(durationMs / 1000).toFixed(1)} s in, before the drill reached rest`;
  return missing === null ? line : `${line}; ${missing}`;
}

/** The entry of an interrupted scenario: its facts kept, nothing judged (see above). */
export function interruptedEntry<Entry extends Omit<ScenarioReport, 'verdict'>>(entry: Entry, invariants: readonly string[], line: string): Entry {
  const note = 'the drill was interrupted before it reached rest: a half-run proves nothing either way';
  const notJudged: Verdict[] = INVARIANTS.filter((i) => invariants.includes(i.id)).map((i) => ({
    id: i.id,
    statement: i.statement,
    status: 'not_judged',
    judged: 0,
    evidence: [],
    note,
  }));
  return { ...entry, interrupted: line, error: null, invariants: notJudged, expectations: [], unfired: [], nothingJudged: [] };
}
