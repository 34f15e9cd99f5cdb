import type Database from 'better-sqlite3';
import { type Clock, utc } from '../../kernel/clock.js';
import { openSqliteFile } from '../../kernel/sqlite-file.js';
import type { Incident, SagaLog, SagaStore, TxEntry, TxRow, Writer } from '../../port/checkpoint.js';
import { sagaTablesSql } from './saga-tables.js';

// The checkpoints and incidents of every job of one drill, and per job the
// highest epoch a holder has shown: the floor under which nobody may write any more.
const SCHEMA_SQL = `${sagaTablesSql({ log: 'saga_log', incidents: 'saga_incidents', jobId: 'job_id TEXT NOT NULL' })}
CREATE TABLE IF NOT EXISTS saga_epochs (
  job_id TEXT PRIMARY KEY,
  epoch INTEGER NOT NULL
);`;

const RAISE_FLOOR = `
INSERT INTO saga_epochs (job_id, epoch) VALUES (@jobId, @epoch)
ON CONFLICT (job_id) DO UPDATE SET epoch = MAX(epoch, excluded.epoch)`;

// The fence, in the statement that writes: nothing lands under an epoch a later holder has shown.
const APPEND = `
INSERT INTO saga_log (job_id, step_id, action, idempotency_key, status, external_reference, compensation_status, attempt, epoch, worker, detail, error_kind, at)
SELECT @jobId, @stepId, @action, @key, @status, @externalReference, @compensationStatus, @attempt, @epoch, @worker, @detail, @errorKind, @at
WHERE COALESCE((SELECT epoch FROM saga_epochs WHERE job_id = @jobId), 0) <= @epoch`;

/**
 * The saga's log beside the run, for queues whose store cannot share a
 * transaction with it (BullMQ's Redis, a queue in another language): a
 * SQLite file of the harness's own. Without the queue's lock to lean on, it
 * fences by the epoch: a holder shows its epoch when it opens its log
 * (logFor), raising the job's floor, and from then on every checkpoint under
 * an older epoch is refused. A stale holder can still write until the new one
 * has shown up; the queue's own fencing and the world's cover that gap.
 */
export class FileSagaStore implements SagaStore {
  private constructor(
    private readonly db: Database.Database,
    private readonly clock: Clock,
  ) {}

  /** Opens (creating if needed) the saga file; every process of a drill opens its own connection to it. */
  static open(file: string, clock: Clock): FileSagaStore {
    return new FileSagaStore(openSqliteFile(file, { schemaSql: SCHEMA_SQL, synchronous: 'NORMAL' }), clock);
  }

  async logFor(writer: Writer): Promise<SagaLog> {
    this.db.prepare(RAISE_FLOOR).run({ jobId: writer.jobId, epoch: writer.epoch });
    return {
      append: async (entry) => this.append(writer, entry),
      rows: () => this.rows(writer.jobId),
      incident: async (stepId, error) => {
        this.db
          .prepare('INSERT INTO saga_incidents (job_id, step_id, error, at) VALUES (?, ?, ?, ?)')
          .run(writer.jobId, stepId, error, utc(this.clock.now()));
      },
    };
  }

  /** Appends under `writer`'s epoch, unless a later one was shown for its job; true when written. */
  append(writer: Writer, entry: TxEntry): boolean {
    return (
      this.db.prepare(APPEND).run({
        jobId: writer.jobId,
        stepId: entry.stepId,
        action: entry.action,
        key: entry.key,
        status: entry.status,
        externalReference: entry.externalReference ?? null,
        compensationStatus: entry.compensationStatus ?? null,
        attempt: writer.attempt,
        epoch: writer.epoch,
        worker: writer.holder,
        detail: entry.detail ?? null,
        errorKind: entry.errorKind ?? null,
        at: utc(this.clock.now()),
      }).changes === 1
    );
  }

  async rows(jobId?: string): Promise<TxRow[]> {
    return jobId === undefined
      ? (this.db.prepare('SELECT * FROM saga_log ORDER BY id').all() as TxRow[])
      : (this.db.prepare('SELECT * FROM saga_log WHERE job_id = ? ORDER BY id').all(jobId) as TxRow[]);
  }

  async incidents(jobId?: string): Promise<Incident[]> {
    return jobId === undefined
      ? (this.db.prepare('SELECT * FROM saga_incidents ORDER BY id').all() as Incident[])
      : (this.db.prepare('SELECT * FROM saga_incidents WHERE job_id = ? ORDER BY id').all(jobId) as Incident[]);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
