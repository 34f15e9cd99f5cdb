import type { DrillDemands, DrillFit } from '../../port/adapter.js';
import { type GraphileOptions, graphileOptions, type JobKeyMode } from './options.js';
import { graphileAtLeast } from './retry-timing.js';

/** graphile keeps max_attempts in a smallint. */
const MAX_ATTEMPTS_LIMIT = 32_767;

/**
 * Why a drill whose fault kills or freezes a job's holder is not judged on
 * graphile as it ships: get_job takes only a row whose `locked_at` is null
 * (its `is_available` column, sql/000011.sql), and nothing but graphile's
 * sweep clears a dead worker's lock, once it is 4 hours old
 * (dist/sql/resetLockedAt.js: `where locked_at < now() - interval '4 hours'`).
 */
export const HOLDER_DIES_REASON =
  "not recovered within the drill: graphile-worker releases a dead worker's lock after 4 h (its get_job takes only a job whose " +
  'locked_at is null, and its sweep clears locked_at once it is 4 hours old: dist/sql/resetLockedAt.js); --queue-option ' +
  'release_dead_locks=true drills a deployment that frees it sooner';

/** What each jobKeyMode does with the key of a job already there, for the mapping. */
const KEY_MODE_LINE: Readonly<Record<JobKeyMode, string>> = {
  replace:
    "graphile's default: a waiting job is replaced (attempts reset), and beside a locked one a second job is made that runs too " +
    '(graphile/worker#303)',
  preserve_run_at: 'as replace (a second job beside a locked one, graphile/worker#303), but a waiting job keeps its run_at',
  unsafe_dedupe: "any job of the key is kept, running or not (graphile's SQL: 'If in doubt, DO NOT USE THIS')",
};

/** Why graphile cannot run this drill as asked, or null. */
function refusal(demands: DrillDemands, options: GraphileOptions): Extract<DrillFit, { ok: false }> | null {
  const over = demands.maxAttempts.find((n) => n > MAX_ATTEMPTS_LIMIT);
  if (over !== undefined)
    return { ok: false, reason: `max_attempts ${over} is beyond graphile-worker's limit of ${MAX_ATTEMPTS_LIMIT} (a smallint)` };
  // Before the lock: whatever frees a dead holder's lock, a drill built on a renewal proves nothing here.
  if (demands.points.includes('heartbeat')) {
    return {
      ok: false,
      reason: 'graphile-worker has no heartbeat (a job is locked, never leased or renewed), so the heartbeat fault point can never fire',
    };
  }
  if (demands.holderDies && !options.releaseDeadLocks) return { ok: false, reason: HOLDER_DIES_REASON };
  if (options.releaseDeadLocks && !demands.coordinator) {
    return {
      ok: false,
      reason:
        "release_dead_locks=true frees a dead worker's lock through the drill's coordinator (forceUnlockWorkers), " +
        'and this drill runs without one',
    };
  }
  return null;
}

/** Who unlocks a job whose worker stopped, and what that costs, for the mapping. */
function lockLines(demands: DrillDemands, options: GraphileOptions): Record<string, string> {
  if (!options.releaseDeadLocks) {
    return {
      'lock release':
        "graphile's own only: its sweep (resetLockedAt) clears a lock once it is 4 h old; nothing else unlocks a job (release_dead_locks=false)",
      'lease renewal': 'none: graphile-worker has no lease and no heartbeat (a heartbeat fault point never fires)',
    };
  }
  return {
    'lock release':
      `forceUnlockWorkers after lease_ms ${demands.leaseMs} + skew ${demands.skewMarginMs} ms, by the drill's coordinator ` +
      "(release_dead_locks=true: a piece a deployment adds; graphile's own sweep: 4 h)",
    'lease renewal': 'none: graphile-worker has no heartbeat (a heartbeat fault point never fires; a live job held past the lease is unlocked)',
  };
}

/**
 * How graphile-worker runs a drill: the options it is given, and the drill's
 * assumptions beside them, with the waits its fixed retry delays need.
 * Refused: an attempt budget beyond graphile's smallint; a drill that arms the
 * heartbeat point (graphile has none: it could never fire); a drill that kills or
 * freezes a job's holder while nothing but graphile's 4-hour sweep would free
 * its lock (not judged: the queue is not wrong, the drill is too short); and
 * release_dead_locks without the coordinator that does it.
 */
export function fitGraphile(demands: DrillDemands): DrillFit {
  const options = graphileOptions(demands.queueOptions);
  const refused = refusal(demands, options);
  if (refused) return refused;
  const retry = demands.retryDelay;
  const atLeast = graphileAtLeast(demands);
  return {
    ok: true,
    mapping: {
      run: 'run() with a task list of one task (the drill handler), concurrency 1, noHandleSignals',
      database: "a database of its own per drill, graphile's default schema (graphile's migration NOTIFY is database-wide)",
      pollInterval: demands.pollMs,
      workerId: "the drill's worker id and the process id (w1#pid), so a restarted worker is never unlocked for a dead one",
      jobKey: `the idempotency key, jobKeyMode ${options.jobKeyMode}: ${KEY_MODE_LINE[options.jobKeyMode]}`,
      maxAttempts: [...new Set(demands.maxAttempts)].join(', '),
      ...lockLines(demands, options),
      'retry delay':
        `exp(least(attempts, 10)) s, fixed in graphile's SQL ` +
        `(asked: base ${retry.baseMs} ms, cap ${retry.capMs} ms, jitter ${retry.jitterMs} ms; not honoured)`,
      review: 'attempts >= max_attempts; a review settlement is failJob then permanentlyFailJobs; out only by rescheduleJobs (a person)',
      compensation: 'none: a job whose steps must be undone goes to review for a person (graphile has no hand-off to the coordinator)',
      done: "completeJob deletes the row; the harness's trigger keeps its history",
      clock: 'database now()',
    },
    ...(atLeast ? { atLeast } : {}),
  };
}
