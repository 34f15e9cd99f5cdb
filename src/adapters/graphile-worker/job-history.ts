import { utc } from '../../kernel/clock.js';
import type { JobStatus } from '../../kernel/vocabulary.js';
import type { JobSnapshot, Transition } from '../../port/snapshot.js';
import type { HistoryRow, ReviewOutcome } from './history-rows.js';
import { drillWorkerOf, writerOf } from './identity.js';

/*
 * The trigger's row images turned into the judge's words. graphile-worker has
 * no status column; a row's state is read from what graphile itself reads:
 *   deleted (completeJob)                        -> done
 *   locked_by set (get_job's claim)              -> running
 *   attempts >= max_attempts, unlocked           -> review (failed for good: get_job never takes it; only a
 *                                                   person's rescheduleJobs does)
 *   attempts = 0, unlocked                       -> pending
 *   unlocked, attempts left, after review        -> pending (a person rescheduled it)
 *   unlocked, attempts left, otherwise           -> retry (failJob, or forceUnlockWorkers)
 * An enqueue of a job's key in jobKeyMode replace is the producer's change:
 * a waiting job gets attempts 0 (pending again, replaced); a locked or failed
 * one loses its key, a locked one its remaining attempts (attempts =
 * max_attempts, so it ends in review unless it completes), and a second job is
 * inserted under the key. Each job stays under the key it was enqueued with,
 * so the judge sees two jobs of one key.
 * The epoch is `attempts`, which get_job raises at every claim. A write's epoch
 * is its writer's: the attempts at that writer's last claim of the job (a
 * zombie's late complete shows its old epoch, not the current holder's).
 * Two changes merge into one transition where no other process could have
 * seen the state between them: two in one transaction (the coordinator's
 * unlock and permanent fail), and a worker's failJob followed by its own
 * permanentlyFailJobs before the retry's run_at (how a review settlement is
 * written: graphile fails a job only by its task throwing).
 */

/** A job's state after a change, given its state before. */
export function statusOf(row: HistoryRow, before: JobStatus | null): JobStatus {
  if (row.op === 'DELETE') return 'done';
  if (row.lockedBy !== null) return 'running';
  if (row.attempts >= row.maxAttempts) return 'review';
  if (row.attempts === 0) return 'pending';
  return before === 'review' || before === 'pending' ? 'pending' : 'retry';
}

interface JobTrack {
  status: JobStatus;
  first: HistoryRow;
  last: HistoryRow;
  /** The epoch of each graphile worker's last claim of the job. */
  claims: Map<string, number>;
  /** The last transition, with the change that made it (for merging). */
  lastTransition?: { transition: Transition; row: HistoryRow };
  /** Its key was cleared by an enqueue of the key (replace), which made a second job under it. */
  keyTaken: boolean;
}

/** Why a job is out of attempts, where failJob stored no error. */
function exhausted(track: JobTrack): string {
  return track.keyTaken
    ? 'attempts exhausted: an enqueue of its key (jobKeyMode replace) set attempts to max_attempts and made a second job'
    : 'attempts exhausted';
}

function reasonFor(to: JobStatus, row: HistoryRow, actor: string, track: JobTrack): string {
  switch (to) {
    case 'done':
      return 'task returned: completeJob deleted the row';
    case 'running':
      return `claimed by graphile worker ${row.lockedBy} (get_job)`;
    case 'retry':
      return actor === 'coordinator'
        ? 'locked_at older than the lease: forceUnlockWorkers by the coordinator'
        : `task threw (failJob): ${row.lastError ?? ''}`;
    case 'review':
      return row.lastError ?? exhausted(track);
    case 'pending':
      if (actor === 'producer') return 'replaced by an enqueue of its key (jobKeyMode replace: attempts reset to 0)';
      return row.attempts === 0 ? 'enqueued' : 'rescheduled by a person (rescheduleJobs)';
    default:
      return `graphile row changed to ${to}`;
  }
}

/** The epoch and the drill's worker a change was made by (the holder it released, for the coordinator). */
function writerEpoch(track: JobTrack, row: HistoryRow, to: JobStatus): { epoch: number; worker: string | null } {
  const writer = writerOf(row.byApp);
  if (to === 'running') return { epoch: row.attempts, worker: row.lockedBy ? drillWorkerOf(row.lockedBy) : null };
  if (writer.actor === 'worker' && writer.who !== null) {
    return { epoch: track.claims.get(writer.who) ?? row.attempts, worker: drillWorkerOf(writer.who) };
  }
  const held = track.last.lockedBy;
  return { epoch: track.last.attempts, worker: writer.actor === 'coordinator' && held ? drillWorkerOf(held) : null };
}

/** Whether `row` continues the job's last transition unseen by anyone else (see the header). */
function mergesWithLast(track: JobTrack, row: HistoryRow, to: JobStatus): boolean {
  const last = track.lastTransition;
  if (!last || last.transition.from === null) return false;
  if (last.row.tx === row.tx) return true;
  const runAt = last.row.runAt?.getTime() ?? 0;
  return (
    to === 'review' &&
    last.transition.to === 'retry' &&
    last.row.byApp === row.byApp &&
    writerOf(row.byApp).actor === 'worker' &&
    row.at.getTime() < runAt
  );
}

/** Applies one change to its job's track; the transition it made, if it made a new one. */
function step(track: JobTrack, row: HistoryRow, seq: number): Transition | null {
  const to = statusOf(row, track.status);
  const from = track.status;
  const changed = to !== from;
  const merge = changed && mergesWithLast(track, row, to);
  const writer = writerOf(row.byApp);
  let made: Transition | null = null;
  const sameTx = track.lastTransition?.row.tx === row.tx;
  if (!changed && sameTx && to === 'review' && track.lastTransition && row.lastError) {
    // The reason permanentlyFailJobs stored, in the transaction that sent the job to review.
    track.lastTransition.transition.reason = `${track.lastTransition.transition.reason}: ${row.lastError}`;
  }
  if (merge && track.lastTransition) {
    const t = track.lastTransition.transition;
    t.to = to;
    t.reason = `${t.reason}; then ${reasonFor(to, row, writer.actor, track)}`;
    delete t.retryDelayMs;
  } else if (changed) {
    const { epoch, worker } = writerEpoch(track, row, to);
    made = {
      seq,
      jobId: row.jobId,
      kind: 'transition',
      from,
      to,
      attempt: row.attempts,
      epoch,
      worker,
      actor: writer.actor,
      reason: reasonFor(to, row, writer.actor, track),
      at: utc(row.at.getTime()),
    };
    if (to === 'retry' && writer.actor === 'worker' && row.runAt) made.retryDelayMs = Math.max(0, row.runAt.getTime() - row.at.getTime());
    track.lastTransition = { transition: made, row };
  }
  if (to === 'running' && row.lockedBy) track.claims.set(row.lockedBy, row.attempts);
  if (row.key === null && track.last.key !== null && writer.actor === 'producer') track.keyTaken = true;
  track.status = to;
  track.last = row;
  return made;
}

/** The drill's action and payload inside graphile's payload. */
function unwrap(payload: string | null): { action: string; payload: string } {
  try {
    const parsed = JSON.parse(payload ?? '{}') as { action?: unknown; payload?: unknown };
    return { action: String(parsed.action ?? ''), payload: typeof parsed.payload === 'string' ? parsed.payload : '{}' };
  } catch {
    return { action: '', payload: '{}' };
  }
}

/** A review's outcome, if the adapter gave it for this review (same epoch); else a plain review (attempts exhausted). */
function outcomeOf(given: ReviewOutcome | undefined, row: HistoryRow): ReviewOutcome['outcome'] {
  return given && given.epoch === row.attempts ? given.outcome : 'review';
}

function snapshotOf(track: JobTrack, lockHeldMs: number, outcomes: Map<string, ReviewOutcome>): JobSnapshot {
  const row = track.last;
  const status = track.status;
  const running = status === 'running';
  const iso = (d: Date | null) => (d ? utc(d.getTime()) : null);
  return {
    id: row.jobId,
    // The key it was enqueued with (replace may clear it later); the payload it runs (replace may overwrite it).
    key: track.first.key ?? '',
    ...unwrap(row.payload ?? track.first.payload),
    status,
    outcome: status === 'done' ? 'done' : status === 'review' ? outcomeOf(outcomes.get(row.jobId), row) : null,
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    holder: running && row.lockedBy ? drillWorkerOf(row.lockedBy) : null,
    // graphile has no lease: its lock ends at its 4-hour sweep, or at the lease where the coordinator frees older locks.
    leaseUntil: running && row.lockedAt ? utc(row.lockedAt.getTime() + lockHeldMs) : null,
    epoch: row.attempts,
    nextRunAt: status === 'pending' || status === 'retry' ? iso(row.runAt) : null,
    lastError: row.lastError,
    reviewReason: status === 'review' ? (row.lastError ?? exhausted(track)) : null,
    resultDigest: null,
    createdAt: utc((row.createdAt ?? track.first.at).getTime()),
    updatedAt: utc(row.at.getTime()),
  };
}

/** Every job (the deleted, done ones too) and its transitions, from the trigger's rows. */
export function rebuild(
  rows: readonly HistoryRow[],
  lockHeldMs: number,
  outcomes: Map<string, ReviewOutcome>,
): { jobs: JobSnapshot[]; history: Transition[] } {
  const tracks = new Map<string, JobTrack>();
  const history: Transition[] = [];
  for (const row of rows) {
    let track = tracks.get(row.jobId);
    if (!track) {
      track = { status: statusOf(row, null), first: row, last: row, claims: new Map(), keyTaken: false };
      tracks.set(row.jobId, track);
      const writer = writerOf(row.byApp);
      const created: Transition = {
        seq: row.seq,
        jobId: row.jobId,
        kind: 'transition',
        from: null,
        to: track.status,
        attempt: row.attempts,
        epoch: row.attempts,
        worker: null,
        actor: writer.actor,
        reason: 'enqueued (add_job)',
        at: utc(row.at.getTime()),
      };
      history.push(created);
      continue;
    }
    const made = step(track, row, row.seq);
    if (made) history.push(made);
  }
  return { jobs: [...tracks.values()].map((t) => snapshotOf(t, lockHeldMs, outcomes)), history };
}
