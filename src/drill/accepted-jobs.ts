import type { Accepted, LogFile } from '../judge/evidence.js';
import type { ResolvedJob } from '../scenarios/resolve.js';

/*
 * Which producer asked for which key, and which of them was told it created
 * the job: read from the producers' own logs (p1.1.log, p2.1.log, p1.2.log
 * after a restart, ...), one JSON line per enqueue (src/producer/produce-plans.ts):
 * {"event":"enqueued","key":…,"created":true|false,"calledAt":ms,"answeredAt":ms},
 * or "enqueue-failed", which is no acceptance (its error is kept: why the key never
 * reached the queue). Their stderr (.log.err) and
 * every other process's log are not read.
 *
 * A key raced when calls of two different producers on it were in flight at
 * once: their windows (called to answered, to the millisecond) overlap. Two
 * producers enqueueing the same key one after the other only test a look-up;
 * racing calls test the store's dedupe.
 */

/** One producer's word on one enqueue. */
interface Enqueued {
  key: string;
  created: boolean;
  /** When the producer made the call and got the answer (ms since the epoch); absent in a line without them. */
  calledAt?: number;
  answeredAt?: number;
}

/** How often each key was tried and created, and whether two producers' calls on it were in flight at once. */
export type EnqueueCounts = Map<string, { tried: number; created: number; raced: boolean }>;

/** One call on a key, by the producer (p1, not p1's second run) that made it. */
interface Call {
  producer: string;
  calledAt: number | undefined;
  answeredAt: number | undefined;
}

/** Whether two different producers' calls were in flight at once (a call without its times cannot be placed). */
export function racedCalls(calls: readonly Call[]): boolean {
  return calls.some((a, i) =>
    calls
      .slice(i + 1)
      .some(
        (b) =>
          a.producer !== b.producer &&
          a.calledAt !== undefined &&
          a.answeredAt !== undefined &&
          b.calledAt !== undefined &&
          b.answeredAt !== undefined &&
          a.calledAt <= b.answeredAt &&
          b.calledAt <= a.answeredAt,
      ),
  );
}

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

/** How often each key was asked for and created, over every producer log, and whether it raced. */
export function enqueueCounts(logs: readonly LogFile[]): EnqueueCounts {
  const byKey = new Map<string, { created: number; calls: Call[] }>();
  for (const log of logs) {
    if (!isProducerLog(log.name)) continue;
    const producer = log.name.slice(0, log.name.indexOf('.'));
    for (const entry of enqueuedLines(log.text)) {
      const key = byKey.get(entry.key) ?? { created: 0, calls: [] };
      key.calls.push({ producer, calledAt: entry.calledAt, answeredAt: entry.answeredAt });
      if (entry.created) key.created++;
      byKey.set(entry.key, key);
    }
  }
  return new Map([...byKey].map(([key, { created, calls }]) => [key, { tried: calls.length, created, raced: racedCalls(calls) }]));
}

/** What the producers were told when an enqueue failed, by key: each different error once, in the order they came. */
export function enqueueFailures(logs: readonly LogFile[]): Map<string, string[]> {
  const byKey = new Map<string, string[]>();
  for (const log of logs) {
    if (!isProducerLog(log.name)) continue;
    for (const line of log.text.split('\n')) {
      if (!line.includes('"enqueue-failed"')) continue;
      const entry = parseFailure(line);
      if (!entry) continue;
      const seen = byKey.get(entry.key) ?? [];
      if (!seen.includes(entry.error)) byKey.set(entry.key, [...seen, entry.error]);
    }
  }
  return byKey;
}

function parseFailure(line: string): { key: string; error: string } | null {
  try {
    const entry = JSON.parse(line) as { key?: unknown; error?: unknown };
    return typeof entry.key === 'string' ? { key: entry.key, error: String(entry.error ?? 'no reason given') } : null;
  } catch {
    return null; // a producer killed mid-line: it said nothing whole
  }
}

/** Each planned job, in the scenario's order, with how often the producers tried to enqueue it and were told they created it, and whether they raced on it. */
export function acceptedJobs(jobs: ReadonlyArray<Pick<ResolvedJob, 'key' | 'plan' | 'expect'>>, logs: readonly LogFile[]): Accepted[] {
  const attempts = enqueueCounts(logs);
  const failures = enqueueFailures(logs);
  return jobs.map((job) => ({
    key: job.key,
    plan: job.plan,
    enqueueAttempts: attempts.get(job.key)?.tried ?? 0,
    createdCount: attempts.get(job.key)?.created ?? 0,
    raced: attempts.get(job.key)?.raced ?? false,
    ...(failures.has(job.key) ? { enqueueFailures: failures.get(job.key) } : {}),
    expect: job.expect,
  }));
}
