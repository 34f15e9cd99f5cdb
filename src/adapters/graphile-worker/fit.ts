import type { DrillDemands, DrillFit } from '../../port/adapter.js';
import { JOB_KEY_MODE } from './job-key-mode.js';

/** graphile keeps max_attempts in a smallint. */
const MAX_ATTEMPTS_LIMIT = 32_767;

/**
 * How graphile-worker runs a drill: the options it is given, and the drill's
 * assumptions beside them. Refused: a drill without the coordinator (nothing
 * would take a dead worker's job back before graphile's 4-hour lock sweep), and
 * an attempt budget beyond graphile's smallint.
 */
export function fitGraphile(demands: DrillDemands): DrillFit {
  if (!demands.coordinator) {
    return {
      ok: false,
      reason:
        "graphile-worker has no lease: a dead worker's job stays locked until graphile's own sweep frees locks older than 4 hours; " +
        'only the coordinator frees it sooner (forceUnlockWorkers), and this drill runs without one',
    };
  }
  const over = demands.maxAttempts.find((n) => n > MAX_ATTEMPTS_LIMIT);
  if (over !== undefined)
    return { ok: false, reason: `max_attempts ${over} is beyond graphile-worker's limit of ${MAX_ATTEMPTS_LIMIT} (a smallint)` };
  const retry = demands.retryDelay;
  return {
    ok: true,
    mapping: {
      run: 'run() with a task list of one task (the drill handler), concurrency 1, noHandleSignals',
      pollInterval: demands.pollMs,
      workerId: "the drill's worker id and the process id (w1#pid), so a restarted worker is never unlocked for a dead one",
      jobKey: `the idempotency key, jobKeyMode ${JOB_KEY_MODE} (replace would add a second job while one runs, graphile/worker#303)`,
      maxAttempts: [...new Set(demands.maxAttempts)].join(', '),
      'lock sweep': `forceUnlockWorkers after lease_ms ${demands.leaseMs} + skew ${demands.skewMarginMs} ms, by the coordinator (graphile's own sweep: 4 h)`,
      'lease renewal': 'none: graphile-worker has no heartbeat (a heartbeat fault point never fires; a live job held past the lease is unlocked)',
      'retry delay':
        `exp(least(attempts, 10)) s, fixed in graphile's SQL ` +
        `(asked: base ${retry.baseMs} ms, cap ${retry.capMs} ms, jitter ${retry.jitterMs} ms; not honoured)`,
      review: 'attempts >= max_attempts; a review settlement is failJob then permanentlyFailJobs; out only by rescheduleJobs (a person)',
      compensation: 'none: a job whose steps must be undone goes to review for a person (graphile has no hand-off to the coordinator)',
      done: "completeJob deletes the row; the harness's trigger keeps its history",
      clock: 'database now()',
    },
  };
}
