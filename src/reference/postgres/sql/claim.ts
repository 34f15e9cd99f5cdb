import { CLOCK, firstRow, millis, type NamedStatement, type Queryable } from '../../../adapters/pg/queryable.js';
import { assertTransition } from '../../../port/states.js';
import type { JobRow } from '../../job.js';
import { appendEvent } from './append-event.js';
import { isoText, JOB_ROW_COLUMNS, jobColumns } from './columns.js';
import { sweepExpiredLeases } from './sweep-expired-leases.js';

export interface ClaimInput {
  workerId: string;
  leaseMs: number;
  skewMarginMs: number;
}

// The oldest ready job, locked, skipping any another claimer has locked: no
// two claimers take one job, and none waits for another. The lock is taken
// before LIMIT (the plan is Limit over LockRows), so a row a concurrent commit
// made unready fails its re-check and the next one is taken instead.
// FOR NO KEY UPDATE, the lock UPDATE itself takes, so the history's foreign
// key checks (FOR KEY SHARE) on this row never wait for it.
// The job's status before the claim comes back with it, for the history.
// The look-up walks the ready index (schema.ts) in the claim's order and stops at the first due job: no sort.
// `gate`: a further condition on the claim as a whole (completeAndClaim's: the done was written).
const nextReady = (gate: string) => `
  SELECT id, status FROM agent_jobs
  WHERE status IN ('pending', 'retry') AND next_run_at <= clock_timestamp() AND attempts < max_attempts${gate}
  ORDER BY created_at, id
  LIMIT 1
  FOR NO KEY UPDATE SKIP LOCKED`;

const TAKE = `
UPDATE agent_jobs AS j
SET status = 'running', leased_by = @workerId, lease_until = clock.now + ${millis('@leaseMs')},
    attempts = j.attempts + 1, lease_fence = j.lease_fence + 1, updated_at = clock.now
FROM claim_next, ${CLOCK}
WHERE j.id = claim_next.id AND j.status IN ('pending', 'retry')`;

/** The claim's look-up and take, in one statement, with the status the job was claimed from (exported for its plan's test). */
export const CLAIM_SQL = `WITH claim_next AS (${nextReady('')})${TAKE} RETURNING claim_next.status AS claimed_from, ${jobColumns('j')}`;

/**
 * Sweeps every expired lease back (recorded as the claimer's doing), then
 * claims the oldest ready job under a new epoch, counting the attempt and
 * recording the claim. Null when nothing is ready. Run in a transaction: under
 * READ COMMITTED each statement sees the sweep's own releases, so a job just
 * taken back can be claimed at once. The claim whenever expired leases wait
 * (the claim in one statement below, otherwise).
 */
export async function claimAfterSweep(db: Queryable, input: ClaimInput): Promise<JobRow | null> {
  await sweepExpiredLeases(db, { skewMarginMs: input.skewMarginMs, actor: 'worker', worker: input.workerId });
  const taken = await firstRow<JobRow & { claimed_from: 'pending' | 'retry' }>(db, CLAIM_SQL, {
    workerId: input.workerId,
    leaseMs: input.leaseMs,
  });
  if (!taken) return null;
  const { claimed_from: from, ...job } = taken;
  await appendEvent(db, {
    jobId: job.id,
    kind: 'transition',
    from,
    to: 'running',
    attempt: job.attempts,
    fence: job.lease_fence,
    worker: input.workerId,
    actor: 'worker',
    reason: `claimed by ${input.workerId}, lease until ${job.lease_until}`,
  });
  return job;
}

// Both moves the claim in one statement writes are the state machine's: checked here once, as it records them with no code between.
assertTransition('pending', 'running', 'worker');
assertTransition('retry', 'running', 'worker');

/*
 * The claim in one statement, for when no lease waits to be swept (nearly
 * always): what claimAfterSweep does then (its sweep finds nothing), with the
 * take's history row written by the same statement and stamped with the take's
 * own clock. One statement is its own transaction and one round trip, where
 * the transaction was five. Whether a running job's lease ended past the
 * margin is read first, once (`claim_due`, the sweep's cutoff computed once:
 * see sweep-expired-leases.ts); if one did, this claims nothing and says so,
 * and the caller claims with claimAfterSweep, which takes it back first: the
 * oldest ready job is claimed first either way.
 */
const SWEEP_DUE = `EXISTS (SELECT 1 FROM agent_jobs WHERE status = 'running' AND lease_until < (SELECT clock_timestamp() - ${millis('@skewMarginMs')}))`;

/** The claim's common table expressions (`claim_due`, `claim_next`, `claimed`, `claim_recorded`), for a statement to lead with. */
export const CLAIM_EXPRESSIONS = `
claim_due AS (SELECT ${SWEEP_DUE} AS sweep_due),
claim_next AS (${nextReady(' AND NOT (SELECT sweep_due FROM claim_due)')}),
claimed AS (${TAKE} RETURNING claim_next.status AS claimed_from, j.*),
claim_recorded AS (
  INSERT INTO agent_job_events (job_id, kind, from_status, to_status, attempt, fence, worker, actor, reason, at)
  SELECT id, 'transition', claimed_from, 'running', attempts, lease_fence, @workerId, 'worker',
         'claimed by ' || @workerId::text || ', lease until ' || ${isoText('lease_until')}, updated_at
  FROM claimed
  RETURNING job_id
)`;

/** What a statement led by CLAIM_EXPRESSIONS selects of it, from `claimed` and `claim_due` joined to one row. */
export const CLAIM_ANSWER = `(SELECT sweep_due FROM claim_due) AS sweep_due, ${jobColumns('claimed')}`;

/** A claim's answer: the job taken (its columns null when none was), and whether expired leases wait to be swept. */
export type ClaimAnswer = { sweep_due: boolean; id: number | null } & Record<string, unknown>;

/** The job a statement's answer names (its JobRow columns), or null. */
export function claimedJob(answer: ClaimAnswer | undefined): JobRow | null {
  if (!answer || answer.id === null) return null;
  return Object.fromEntries(JOB_ROW_COLUMNS.map((column) => [column, answer[column]])) as unknown as JobRow;
}

/** The claim in one statement (exported for its plan's test). */
export const CLAIM_ONE: NamedStatement = {
  name: 'qd_claim_one',
  text: `
WITH ${CLAIM_EXPRESSIONS}
SELECT ${CLAIM_ANSWER}
FROM (SELECT 1) AS one LEFT JOIN claimed ON true`,
};

/** The claim in one statement (see above): the job, or null with `sweepDue` when expired leases must be swept first. */
export async function claimOne(db: Queryable, input: ClaimInput): Promise<{ job: JobRow | null; sweepDue: boolean }> {
  const answer = await firstRow<ClaimAnswer>(db, CLAIM_ONE, { ...input });
  return { job: claimedJob(answer), sweepDue: answer?.sweep_due === true };
}
