/*
 * What the throughput family tells each of its child processes (one JSON
 * argument), and what a child writes back (one JSON file): the parent and the
 * child share these shapes and nothing else.
 */

/** Each thing the throughput family measures, one child process per worker. */
export const THROUGHPUT_TARGETS = ['sqlite-queue', 'sqlite-raw', 'postgres-queue', 'postgres-raw', 'pgboss', 'bullmq'] as const;

/** One measured target. */
export type ThroughputTarget = (typeof THROUGHPUT_TARGETS)[number];

/** One child's instructions. */
export interface ChildSpec {
  target: ThroughputTarget;
  /** w1, w2, …: the worker id, and the child's name at the start barrier. */
  name: string;
  /** 0-based among the cell's children: a raw child's own row. */
  index: number;
  /** The start barrier's directory (src/kernel/start-barrier.ts). */
  barrier: string;
  /** Where the child writes its ChildResult. */
  resultFile: string;
  /** Where the target lives: a SQLite file, a PostgreSQL schema (the reference's, pg-boss's, the raw table's), a BullMQ key prefix. */
  locator: string;
  /** A raw child: how many write transactions it makes. */
  transactions: number;
}

/** What a child did after the release: how many units (jobs, or raw transactions) and when the last one ended. */
export interface ChildResult {
  name: string;
  units: number;
  /** The common instant the children were let go at (ms since the epoch). */
  releasedAt: number;
  /** When its last unit ended (ms since the epoch); releasedAt when it did none. */
  lastAt: number;
}
