import { type QueueOptionSpecs, type QueueOptionValues, resolveQueueOptions } from '../../port/queue-options.js';

/*
 * graphile-worker's own options a drill may set, as its users set them. The
 * adapter runs graphile as it ships (jobKeyMode `replace`, no lock freed before
 * its own 4-hour sweep) unless an option says otherwise. Its own module,
 * loading nothing of graphile-worker: every process reads the registry, and the
 * fit reads these.
 */

/** addJob's jobKeyMode, in graphile's words. */
export const JOB_KEY_MODES = ['replace', 'preserve_run_at', 'unsafe_dedupe'] as const;
export type JobKeyMode = (typeof JOB_KEY_MODES)[number];

/** The options graphile-worker accepts (`--queue-option KEY=VALUE`, a scenario's `queue_options`). */
export const GRAPHILE_OPTIONS = {
  job_key_mode: {
    describe:
      "addJob's jobKeyMode for the idempotency key: replace (graphile's default: a waiting job is replaced and its attempts reset, " +
      'and beside a locked one a second job is made, graphile/worker#303), preserve_run_at (as replace, but a waiting job keeps its run_at), ' +
      "or unsafe_dedupe (any job of the key is kept; graphile's own SQL says: if in doubt, do not use this)",
    default: 'replace',
    type: { oneOf: JOB_KEY_MODES },
  },
  release_dead_locks: {
    describe:
      "a piece a deployment may add beside graphile-worker: the drill's coordinator frees the lock of a worker silent for longer " +
      'than lease_ms (+ skew) with forceUnlockWorkers. Off: nothing but graphile itself unlocks a job (its sweep, after 4 hours)',
    default: false,
    type: 'boolean',
  },
} as const satisfies QueueOptionSpecs;

/** The options one drill runs graphile with. */
export interface GraphileOptions {
  jobKeyMode: JobKeyMode;
  releaseDeadLocks: boolean;
}

/** The options from their resolved values (checked again, defaults filled in: a connection may be given none). */
export function graphileOptions(values: QueueOptionValues): GraphileOptions {
  const resolved = resolveQueueOptions('graphile-worker', GRAPHILE_OPTIONS, values);
  return { jobKeyMode: resolved.job_key_mode as JobKeyMode, releaseDeadLocks: resolved.release_dead_locks === true };
}
