import type { DrillFit } from '../port/adapter.js';
import type { ResolvedScenario } from '../scenarios/resolve.js';

type AtLeast = Extract<DrillFit, { ok: true }>['atLeast'];

/**
 * A scenario on its queue's own clock: where the queue is slower than the
 * scenario's waits (a retry backoff fixed in its SQL, a recovery that runs on
 * its own schedule), the no-progress watchdog and the deadline are raised to
 * what the queue needs, so a job the queue has scheduled is never called lost
 * by a watchdog shorter than its delay. The line says what was raised and
 * why, for the report; null when nothing was.
 */
export function scenarioOnQueueClock(scenario: ResolvedScenario, atLeast: AtLeast): { scenario: ResolvedScenario; line: string | null } {
  if (atLeast === undefined) return { scenario, line: null };
  const { settings } = scenario;
  const noProgress = Math.max(settings.no_progress_ms, atLeast.noProgressMs ?? 0);
  const timeout = Math.max(settings.timeout_ms, atLeast.timeoutMs ?? 0);
  if (noProgress === settings.no_progress_ms && timeout === settings.timeout_ms) return { scenario, line: null };
  const raised = [
    ...(noProgress !== settings.no_progress_ms ? [`no-progress watchdog ${settings.no_progress_ms} → ${noProgress} ms`] : []),
    ...(timeout !== settings.timeout_ms ? [`deadline ${settings.timeout_ms} → ${timeout} ms`] : []),
  ];
  return {
    scenario: { ...scenario, settings: { ...settings, no_progress_ms: noProgress, timeout_ms: timeout } },
    line: `${raised.join(', ')}: ${atLeast.why}`,
  };
}
