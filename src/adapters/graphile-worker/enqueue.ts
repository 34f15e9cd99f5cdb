import type { Job } from 'graphile-worker';
import { EnqueueError, type EnqueueRequest, type EnqueueResult } from '../../port/adapter.js';
import { DRILL_TASK, type GraphileContext, utilsFor } from './context.js';
import { applicationName } from './identity.js';
import { tableIn } from './pool.js';

/*
 * Enqueue is graphile's addJob with jobKey = the idempotency key, in the
 * jobKeyMode the drill runs (job_key_mode; graphile's default, replace, unless
 * told). What each mode does with a job of the key already there (add_job and
 * add_jobs, sql/000018.sql):
 *   replace          a waiting job is overwritten (its attempts reset to 0, its run_at
 *                    moved); a locked one, or one out of attempts, loses its key (and a
 *                    locked one its remaining attempts), and a second job is inserted
 *                    beside it: both run (graphile/worker#303)
 *   preserve_run_at  as replace, but a waiting job keeps its run_at
 *   unsafe_dedupe    nothing but `revision` changes, running or not ("if in doubt, DO
 *                    NOT USE THIS", says graphile's SQL)
 * In every mode the key holds only while the row exists: graphile deletes a
 * completed job, and the same key enqueued after that is a new job. The answer
 * is the row addJob returns: `revision` 0 is a row inserted now (created: a
 * second job beside a locked one is one), more is the job that was there, the
 * same id (deduplicated, though replace may have reset it: the history shows
 * that). graphile itself tells the two apart the same way.
 */

/** Whether the server answered with an error (the statement certainly rolled back) rather than the connection failing. */
function serverRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

/**
 * The job of `key` now, for an addJob that returned no row: in replace mode
 * the key's job was claimed between add_jobs clearing locked jobs' keys and
 * its insert, whose `on conflict ... where locked_at is null` then changed
 * nothing. Nothing was made; the running job is the key's.
 */
async function runningJobOf(ctx: GraphileContext, key: string): Promise<EnqueueResult> {
  const { rows } = await ctx.pools
    .get(applicationName('producer'))
    .query<{ id: string }>(`SELECT id::text AS id FROM ${tableIn(ctx.schema, '_private_jobs')} WHERE key = $1`, [key]);
  const id = rows[0]?.id;
  if (id === undefined) throw new EnqueueError(true, 'graphile-worker addJob made no job, and no job of its key is left (it finished meanwhile)');
  return { outcome: 'deduplicated', jobId: id };
}

/** Adds one job under its idempotency key, or finds the one there. */
export async function enqueue(ctx: GraphileContext, request: EnqueueRequest): Promise<EnqueueResult> {
  let job: Job;
  try {
    const utils = await utilsFor(ctx, applicationName('producer'));
    // The drill's payload stays the text it was given: the snapshot hands it back as written.
    job = await utils.addJob(
      DRILL_TASK,
      { action: request.action, payload: request.payload },
      { jobKey: request.key, jobKeyMode: ctx.options.jobKeyMode, maxAttempts: request.maxAttempts },
    );
  } catch (error) {
    const definite = serverRefused(error);
    const message = error instanceof Error ? error.message : String(error);
    throw new EnqueueError(definite, `graphile-worker addJob failed (${definite ? 'not made' : 'may have been made'}): ${message}`, { cause: error });
  }
  // add_job returns a row of nulls when its insert changed nothing (see runningJobOf).
  if (job.id === null || job.id === undefined) return runningJobOf(ctx, request.key);
  return { outcome: job.revision === 0 ? 'created' : 'deduplicated', jobId: String(job.id) };
}
