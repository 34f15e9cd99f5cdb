import { EnqueueError, type EnqueueRequest, type EnqueueResult } from '../../port/adapter.js';
import { DRILL_TASK, type GraphileContext, utilsFor } from './context.js';
import { applicationName } from './identity.js';
import { JOB_KEY_MODE } from './job-key-mode.js';

/*
 * Enqueue is graphile's addJob with jobKey = the idempotency key and
 * jobKeyMode 'unsafe_dedupe': an insert that does nothing but bump `revision`
 * when a job with the key exists, running or not. The default mode,
 * 'replace', is for debouncing, not idempotency: it overwrites a waiting job
 * (resetting its attempts), and while the job runs it clears the running job's
 * key and inserts a second job, so both run (graphile/worker#303). Either way
 * the dedupe lasts only while the row exists: graphile deletes a completed
 * job, and the same key enqueued after that is a new job. `revision` tells the
 * two answers apart: 0 is the insert, more is a job that was there (graphile
 * itself wakes its workers only at 0).
 */

/** Whether the server answered with an error (the statement certainly rolled back) rather than the connection failing. */
function serverRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/** Adds one job under its idempotency key, or finds the one there. */
export async function enqueue(ctx: GraphileContext, request: EnqueueRequest): Promise<EnqueueResult> {
  try {
    const utils = await utilsFor(ctx, applicationName('producer'));
    // The drill's payload stays the text it was given: the snapshot hands it back as written.
    const job = await utils.addJob(
      DRILL_TASK,
      { action: request.action, payload: request.payload },
      { jobKey: request.key, jobKeyMode: JOB_KEY_MODE, maxAttempts: request.maxAttempts },
    );
    return { outcome: job.revision === 0 ? 'created' : 'deduplicated', jobId: String(job.id) };
  } catch (error) {
    const definite = serverRefused(error);
    const message = error instanceof Error ? error.message : String(error);
    throw new EnqueueError(definite, `graphile-worker addJob failed (${definite ? 'not made' : 'may have been made'}): ${message}`, { cause: error });
  }
}
