import { notJudgedReport } from '../judge/not-judged.js';
import { HarnessError } from '../kernel/errors.js';
import { redact } from '../kernel/redact.js';
import type { QueueAdapter } from '../port/adapter.js';
import type { QueueOptionValues } from '../port/queue-options.js';
import type { ScenarioReport, TimelineEvent } from '../report/schema.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';

/**
 * The report of a scenario the harness could not carry to its verdict: the
 * queue's server was lost under it, its world host died, a call hung past the
 * deadline. What the queue did in it is not judged either way: an error, never
 * a pass or a fail, with what happened (exit 3).
 */
export function harnessErrorReport(
  scenario: ResolvedScenario,
  impl: QueueAdapter,
  error: string,
  meta: { repeat: number; replay: string; runDir: string; queueOptions?: QueueOptionValues; durationMs?: number; timeline?: TimelineEvent[] },
): ScenarioReport {
  const base = notJudgedReport(scenario, impl, error, meta);
  return {
    ...base,
    verdict: 'error',
    notJudged: null,
    error,
    durationMs: meta.durationMs ?? 0,
    invariants: base.invariants.map((invariant) => ({ ...invariant, note: `not judged: the harness failed (${error})` })),
    timeline: meta.timeline ?? [],
    artefacts: { store: '(see the run directory)', ledger: '(see the run directory)', logs: [] },
  };
}

/** A drill that failed after it ran, with the timeline it had: the report shows what happened up to the failure. */
export class DrillFailedError extends HarnessError {
  constructor(
    message: string,
    readonly timeline: TimelineEvent[],
  ) {
    super('QD_DRILL_FAILED', message);
  }
}

/** How deep a chain of causes is followed: deeper ones are a library's plumbing, not news to a reader. */
const MAX_CAUSES = 3;

/**
 * What a thrown value says, in one line for a report: its message, its code
 * when the message does not already name it (ECONNREFUSED, 57P01,
 * QD_WORLD_LOST: what a person searches for), and what caused it, each
 * redacted of secret-shaped text (a connection string's password).
 */
export function failureText(caught: unknown, depth = 0): string {
  if (!(caught instanceof Error)) return redact(String(caught));
  const code = (caught as { code?: unknown }).code;
  const named = typeof code === 'string' || typeof code === 'number' ? String(code) : '';
  const head = named !== '' && !caught.message.includes(named) ? `${caught.message} [${named}]` : caught.message;
  const cause = caught.cause;
  const tail = cause === undefined || cause === null || depth >= MAX_CAUSES ? '' : ` (cause: ${failureText(cause, depth + 1)})`;
  return redact(`${head}${tail}`);
}
