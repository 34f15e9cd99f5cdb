import type { ThroughputCell } from './family.js';

/** The targets for the SQLite reference at 4 workers: a share of the raw rate in jobs, and a multiple of BullMQ's. */
export const TARGETS = { workers: 4, ofRaw: 0.4, ofBullmq: 1.2 } as const;

/** Issue 29's targets for the PostgreSQL reference, in the same run: a share of PostgreSQL's raw rate in jobs, and faster than pg-boss. */
export const POSTGRES_TARGETS = { ofRaw: 0.5, ofPgboss: 1 } as const;

/** One queue at one number of workers and backlog, beside the references measured in the same run. */
export interface Comparison {
  store: 'sqlite' | 'postgres';
  workers: number;
  backlog: number;
  queueJobsPerSecond: number | null;
  /** The raw write-transaction rate on the same store, in jobs (divided by the queue's transactions per job). */
  rawJobsPerSecond: number | null;
  /** queue ÷ raw: the share of the store's raw rate the queue reaches. */
  ofRaw: number | null;
  bullmqJobsPerSecond: number | null;
  /** queue ÷ BullMQ. */
  ofBullmq: number | null;
  /** pg-boss on the same server: the PostgreSQL reference's only (null beside SQLite, which pg-boss does not run on). */
  pgbossJobsPerSecond: number | null;
  /** queue ÷ pg-boss: above 1, the reference is the faster. */
  ofPgboss: number | null;
}

const rate = (cells: readonly ThroughputCell[], target: ThroughputCell['target'], workers: number, backlog: number) => {
  const cell = cells.find((c) => c.target === target && c.workers === workers && c.backlog === backlog);
  return cell && cell.error === null ? cell.jobsPerSecond : null;
};

const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);

/** Each queue's rate beside its raw reference, BullMQ and (on PostgreSQL) pg-boss, at every workers × backlog measured. */
export function comparisons(cells: readonly ThroughputCell[]): Comparison[] {
  const points = [...new Set(cells.map((c) => `${c.workers}:${c.backlog}`))].map((key) => key.split(':').map(Number) as [number, number]);
  return (['sqlite', 'postgres'] as const).flatMap((store) =>
    points.flatMap(([workers, backlog]) => {
      const queue = rate(cells, `${store}-queue`, workers, backlog);
      const raw = rate(cells, `${store}-raw`, workers, backlog);
      const bullmq = rate(cells, 'bullmq', workers, backlog);
      const pgboss = store === 'postgres' ? rate(cells, 'pgboss', workers, backlog) : null;
      if (queue === null && raw === null) return [];
      return [
        {
          store,
          workers,
          backlog,
          queueJobsPerSecond: queue,
          rawJobsPerSecond: raw,
          ofRaw: ratio(queue, raw),
          bullmqJobsPerSecond: bullmq,
          ofBullmq: ratio(queue, bullmq),
          pgbossJobsPerSecond: pgboss,
          ofPgboss: ratio(queue, pgboss),
        },
      ];
    }),
  );
}
