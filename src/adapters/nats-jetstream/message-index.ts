import type Database from 'better-sqlite3';
import { openSqliteFile } from '../../kernel/sqlite-file.js';

/*
 * What the record of jobs (observed-record.ts) has no column for, kept beside
 * it in the same file: which stream sequence carries each job now (its first
 * message, or a person's requeue of it), and how far each holder's in-progress
 * acks have moved its ack wait. A renewal is written here, not in the record,
 * so it does not count as the queue's progress (a handler renewing for ever
 * is not a queue moving). Every process of the drill opens its own connection.
 */

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS nats_messages (
  seq INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL,
  attempts_before INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS nats_messages_by_job ON nats_messages (job_id, seq);
CREATE TABLE IF NOT EXISTS nats_renewals (
  job_id TEXT PRIMARY KEY,
  epoch INTEGER NOT NULL,
  lease_until TEXT NOT NULL
);`;

/** A job's message now: its stream sequence, and the attempts the job had before it. */
export interface JobMessage {
  seq: number;
  attemptsBefore: number;
}

/** The index of one drill's messages and renewals, in its record file. */
export class MessageIndex {
  private constructor(private readonly db: Database.Database) {}

  static open(file: string): MessageIndex {
    return new MessageIndex(openSqliteFile(file, { schemaSql: SCHEMA_SQL, synchronous: 'NORMAL' }));
  }

  /** Notes that stream sequence `seq` carries `jobId` (idempotent: producer and worker may both tell it). */
  note(seq: number, jobId: string, attemptsBefore: number): void {
    this.db.prepare('INSERT OR IGNORE INTO nats_messages (seq, job_id, attempts_before) VALUES (?, ?, ?)').run(seq, jobId, attemptsBefore);
  }

  /** The message carrying `jobId` now (its latest), or undefined when none was noted. */
  current(jobId: string): JobMessage | undefined {
    const row = this.db.prepare('SELECT seq, attempts_before FROM nats_messages WHERE job_id = ? ORDER BY seq DESC LIMIT 1').get(jobId) as
      | { seq: number; attempts_before: number }
      | undefined;
    return row && { seq: row.seq, attemptsBefore: row.attempts_before };
  }

  /** Notes a renewal of `jobId`'s lease under `epoch`, up to `leaseUntil` (a later epoch replaces an earlier one's). */
  renewed(jobId: string, epoch: number, leaseUntil: string): void {
    this.db
      .prepare(
        `INSERT INTO nats_renewals (job_id, epoch, lease_until) VALUES (?, ?, ?)
         ON CONFLICT (job_id) DO UPDATE SET epoch = excluded.epoch, lease_until = excluded.lease_until
         WHERE excluded.epoch > nats_renewals.epoch OR (excluded.epoch = nats_renewals.epoch AND excluded.lease_until > nats_renewals.lease_until)`,
      )
      .run(jobId, epoch, leaseUntil);
  }

  /** The latest renewal of each job, by job id. */
  renewals(): Map<string, { epoch: number; leaseUntil: string }> {
    const rows = this.db.prepare('SELECT job_id, epoch, lease_until FROM nats_renewals').all() as Array<{
      job_id: string;
      epoch: number;
      lease_until: string;
    }>;
    return new Map(rows.map((r) => [r.job_id, { epoch: r.epoch, leaseUntil: r.lease_until }]));
  }

  close(): void {
    this.db.close();
  }
}
