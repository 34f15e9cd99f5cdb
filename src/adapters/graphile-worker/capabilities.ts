import type { Capabilities } from '../../port/adapter.js';

/*
 * What graphile-worker 0.16 can show, with the harness's history trigger:
 * - history: every change of `_private_jobs` is recorded by the database
 *   (inserts, deletes, and updates of what is judged), with the server's time;
 *   the actor and worker of each come from the writing connection's
 *   application_name, which each process of the drill sets for itself (a
 *   claim's worker is the row's own locked_by). Nothing is the worker's word.
 * - epoch: `attempts`, raised by get_job at every claim; a write's epoch is
 *   its writer's last claim (the history has it).
 * - holder: `locked_by`; graphile having no lease, the end shown is its
 *   sweep's (locked_at + 4 h), or with release_dead_locks the drill's lease.
 * - review: a job at attempts >= max_attempts is never claimed again, nor
 *   touched by graphile's sweep (which only clears locks); an enqueue of its
 *   key takes the key away (replace) or leaves it be (unsafe_dedupe), making
 *   no attempt of it; only an admin call (rescheduleJobs) moves it.
 * - takeover: graphile's own sweep, after 4 hours; with release_dead_locks
 *   the drill's coordinator frees locks older than the lease instead (the
 *   connection then offers the takeover hooks).
 */
export const GRAPHILE_CAPABILITIES: Capabilities = {
  evidence: {
    history: true,
    refusals:
      'graphile-worker refuses no stale write: completeJob deletes the job by id whoever holds it, ' +
      "and failJob's holder check ignores a mismatch silently; nothing records either",
    epoch: true,
    holder: true,
    digest: 'graphile-worker deletes a completed job and keeps no result: there is nowhere to store the verified digest',
    review: true,
    'retry-policy':
      "graphile-worker's retry delay is fixed in its SQL, exp(least(attempts, 10)) seconds after the failure, with no jitter: " +
      "not a doubling with a cap and jitter, so the drill's retry policy cannot be set or declared (the delays are in the history)",
    renewals:
      'graphile-worker keeps no lease end: a job stays locked from its fetch (locked_at) until it ends, and its own loop ' +
      "tells the drill's worker of no lease to report",
  },
  fencing:
    'graphile-worker 0.16 fences no write: completeJob deletes the job by id whoever holds it, ' +
    "and failJob's holder check skips a mismatch without an error",
  sagaStore: 'beside-the-run',
  takeover: 'queue',
  compensation: 'graphile-worker has no compensating state: a job out of attempts stays in its table, with nothing to hand it to a compensator',
  clock: 'server',
};
