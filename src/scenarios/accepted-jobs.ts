import type { Accepted, LogFile } from './evidence.js';
import type { ResolvedJob } from './resolve.js';

/*
 * Which producer asked for which key, and which of them was told it created
 * the job: read from the producers' own logs (p1.1.log, p2.1.log, p1.2.log
 * after a restart, ...), one JSON line per enqueue (src/producer/produce-plans.ts):
 * {"event":"enqueued","key":…,"created":true|false}, or "enqueue-failed",
 * which is no acceptance. Their stderr (.log.err) and every other process's
 * log are not read.
 */

/** One producer's word on one enqueue. */
interface Enqueued {
  key: string;
  created: boolean;
}

/** How often each key was tried and created. */
export type EnqueueCounts = Map<string, { tried: number; created: number }>;

/** Whether a log is a producer's own output (not its stderr). */
export function isProducerLog(name: string): boolean {
  return /^p\d+\./.test(name) && !name.endsWith('.err');
}

/**
 * The enqueued lines of one producer log. A producer killed while writing
 * leaves its last line unfinished (no newline after it): if that fragment is
 * not whole JSON, the producer never said what became of the key, and it
 * counts for nothing (the store shows what happened). Every finished line
 * must be JSON: a bad one is a bug, and throws.
 */
export function enqueuedLines(text: string): Enqueued[] {
  const lines = text.split('\n');
  // '' when the text ends with a newline, as a finished log does.
  const last = lines.pop() ?? '';
  const entries = lines.filter((line) => line.includes('"enqueued"')).map((line) => JSON.parse(line) as Enqueued);
  if (last.includes('"enqueued"')) {
    const cut = parseOrNull(last);
    if (cut !== null) entries.push(cut);
  }
  return entries;
}

function parseOrNull(text: string): Enqueued | null {
  try {
    return JSON.parse(text) as Enqueued;
  } catch {
    return null;
  }
}

/** How often each key was asked for and created, over every producer log. */
export function enqueueCounts(logs: readonly LogFile[]): EnqueueCounts {
  const attempts: EnqueueCounts = new Map();
  for (const log of logs) {
    if (!isProducerLog(log.name)) continue;
    for (const entry of enqueuedLines(log.text)) {
      const counts = attempts.get(entry.key) ?? { tried: 0, created: 0 };
      counts.tried++;
      if (entry.created) counts.created++;
      attempts.set(entry.key, counts);
    }
  }
  return attempts;
}

/** Each planned job, in the scenario's order, with how often the producers tried to enqueue it and were told they created it. */
export function acceptedJobs(jobs: ReadonlyArray<Pick<ResolvedJob, 'key' | 'plan' | 'expect'>>, logs: readonly LogFile[]): Accepted[] {
  const attempts = enqueueCounts(logs);
  return jobs.map((job) => ({
    key: job.key,
    plan: job.plan,
    enqueueAttempts: attempts.get(job.key)?.tried ?? 0,
    createdCount: attempts.get(job.key)?.created ?? 0,
    expect: job.expect,
  }));
}
