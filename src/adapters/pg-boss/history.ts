import type { Actor, JobStatus } from '../../kernel/vocabulary.js';
import type { Transition } from '../../port/snapshot.js';
import { parseApplicationName } from './boss.js';
import { EXPIRED_MESSAGE, outputError, readOutput } from './job-data.js';
import { statusOf } from './states.js';

/** A row the history trigger wrote (src/adapters/pg-boss/history-trigger.ts). */
export interface HistoryRow {
  seq: string | number;
  job_id: string;
  op: 'I' | 'U' | 'D';
  old_state: string | null;
  new_state: string | null;
  retry_count: number;
  retry_limit: number;
  start_after: Date;
  completed_on: Date | null;
  output: unknown;
  app: string;
  tx: string | number;
  at: Date;
  tx_at: Date;
}

export const HISTORY_SQL = `
SELECT seq, job_id::text AS job_id, op, old_state, new_state, retry_count, retry_limit, start_after, completed_on, output, app, tx, at, tx_at
FROM qd_history ORDER BY seq`;

/** One change of one job: a row's change, or pg-boss's delete and re-insert (its fail) paired as one. */
interface Change {
  seq: number;
  jobId: string;
  from: JobStatus | null;
  /** The row as it is after the change. */
  after: HistoryRow;
}

/**
 * Pairs pg-boss's fail (a DELETE and an INSERT of the same id in one
 * statement) into one change; a DELETE with no INSERT is the archive moving a
 * finished job out of the table, not a change of state.
 */
function changesOf(rows: readonly HistoryRow[]): Change[] {
  const inserts = new Map<string, HistoryRow>();
  for (const row of rows) if (row.op === 'I') inserts.set(`${row.tx}:${row.job_id}`, row);
  const consumed = new Set<HistoryRow>();
  const changes: Change[] = [];
  for (const row of rows) {
    if (consumed.has(row)) continue;
    if (row.op === 'D') {
      const insert = inserts.get(`${row.tx}:${row.job_id}`);
      if (!insert || Number(insert.seq) < Number(row.seq)) continue;
      consumed.add(insert);
      changes.push({ seq: Number(row.seq), jobId: row.job_id, from: statusOf(row.old_state ?? '', row.completed_on), after: insert });
    } else if (row.op === 'I') {
      changes.push({ seq: Number(row.seq), jobId: row.job_id, from: null, after: row });
    } else {
      // The old state is read with the new row's completed_on: no pg-boss update out of retry (a fetch) changes it.
      changes.push({ seq: Number(row.seq), jobId: row.job_id, from: statusOf(row.old_state ?? '', row.completed_on), after: row });
    }
  }
  return changes;
}

/** Who made a change, as the drill's state machine names actors, and the drill worker whose connection made it. */
function actorOf(from: JobStatus | null, to: JobStatus, row: HistoryRow): { actor: Actor; worker: string | null } {
  const app = parseApplicationName(row.app);
  const worker = app.role === 'worker' ? app.id : null;
  if (from === null) return { actor: 'producer', worker: null };
  if (to === 'running') return { actor: 'worker', worker };
  if (app.role === 'human' || (from === 'review' && to === 'pending')) return { actor: 'human', worker: null };
  // pg-boss's maintenance (in a supervising instance) failing an expired job: the queue's own takeover. The output
  // is the change's own only when leaving running: a later fetch keeps the row's output as it was.
  const expired = from === 'running' && outputError(readOutput(row.output)) === EXPIRED_MESSAGE;
  if (app.role === 'maintenance' || expired) return { actor: 'coordinator', worker: null };
  return { actor: 'worker', worker };
}

function reasonOf(from: JobStatus | null, to: JobStatus, row: HistoryRow): string {
  const output = readOutput(row.output);
  const error = outputError(output);
  if (from === null) return 'sent';
  if (to === 'running') return 'fetched';
  if (to === 'done') return 'completed';
  if (error === EXPIRED_MESSAGE) return `lease expired: pg-boss maintenance failed it by timeout (${row.new_state})`;
  if (to === 'pending') return `requeued by ${parseApplicationName(row.app).id ?? 'a person'} (pg-boss retry)`;
  return output.reviewReason ?? error ?? `pg-boss ${row.new_state}`;
}

/** The history as the judge reads it, from the trigger's rows. */
export function toTransitions(rows: readonly HistoryRow[]): Transition[] {
  return changesOf(rows).map((change) => {
    const row = change.after;
    const to = statusOf(row.new_state ?? '', row.completed_on);
    const attempt = change.from === null ? 0 : row.retry_count + 1;
    const { actor, worker } = actorOf(change.from, to, row);
    const released = change.from === 'running' && to === 'retry';
    return {
      seq: change.seq,
      jobId: change.jobId,
      kind: 'transition',
      from: change.from,
      to,
      attempt,
      epoch: attempt,
      worker,
      actor,
      reason: reasonOf(change.from, to, row),
      at: row.at.toISOString(),
      // pg-boss counts the delay from its transaction's start (now()); the row changed later, by as long as the
      // statement took: the retry falls due at start_after, not at the change plus the delay.
      ...(released ? { retryDelayMs: Math.max(0, row.start_after.getTime() - row.tx_at.getTime()), retryDueAt: row.start_after.toISOString() } : {}),
    };
  });
}
