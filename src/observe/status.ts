import { parseUtc } from '../kernel/clock.js';
import type { JobStatus } from '../queue/states.js';
import type { SqliteQueue } from '../adapters/sqlite/sqlite-queue.js';
import { readIncidents } from '../saga/incidents.js';

/** Seed 000's observability list, computed from the store alone. */
export interface QueueStatus {
  counts: Record<JobStatus, number>;
  jobs: number;
  /** Claims beyond each job's first, per claim. */
  retryRate: number;
  /** Jobs in review, per job. */
  reviewRate: number;
  /** From enqueue to done, over done jobs (ms). */
  completionMs: { p50: number; p95: number; max: number } | null;
  /** Leases that expired and were taken back. */
  leaseTimeouts: number;
  /** Writes refused because the writer's lease was lost. */
  refusedWrites: number;
  review: Array<{ jobId: number; reason: string | null; lastError: string | null }>;
  incidents: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** The queue's vital signs. */
export function queueStatus(queue: SqliteQueue): QueueStatus {
  const jobs = queue.jobs();
  const events = queue.events();
  const claims = events.filter((e) => e.kind === 'transition' && e.to_status === 'running').length;
  const doneAt = new Map(events.filter((e) => e.kind === 'transition' && e.to_status === 'done').map((e) => [e.job_id, parseUtc(e.at)]));
  const durations = jobs
    .filter((job) => doneAt.has(job.id))
    .map((job) => doneAt.get(job.id)! - parseUtc(job.created_at))
    .sort((a, b) => a - b);
  const counts = queue.counts();
  return {
    counts,
    jobs: jobs.length,
    retryRate: claims === 0 ? 0 : (claims - jobs.filter((j) => j.attempts > 0).length) / claims,
    reviewRate: jobs.length === 0 ? 0 : counts.review / jobs.length,
    completionMs: durations.length === 0 ? null : { p50: percentile(durations, 50), p95: percentile(durations, 95), max: durations.at(-1)! },
    leaseTimeouts: events.filter((e) => e.kind === 'transition' && e.from_status === 'running' && /^lease of .* expired/.test(e.reason)).length,
    refusedWrites: events.filter((e) => e.kind === 'refused').length,
    review: jobs.filter((j) => j.status === 'review').map((j) => ({ jobId: j.id, reason: j.review_reason, lastError: j.last_error })),
    incidents: readIncidents(queue.db).length,
  };
}

/** The status as lines a person reads. */
export function renderStatus(status: QueueStatus): string {
  const c = status.counts;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `jobs: ${status.jobs}  pending ${c.pending}  running ${c.running}  retry ${c.retry}  done ${c.done}  review ${c.review}  compensating ${c.compensating}`,
    `retry rate ${pct(status.retryRate)}  review rate ${pct(status.reviewRate)}  lease timeouts ${status.leaseTimeouts}  refused writes ${status.refusedWrites}  incidents ${status.incidents}`,
    status.completionMs
      ? `completion time: p50 ${status.completionMs.p50} ms  p95 ${status.completionMs.p95} ms  max ${status.completionMs.max} ms`
      : 'completion time: no job done yet',
  ];
  if (status.review.length > 0) {
    lines.push('in review:');
    for (const r of status.review) lines.push(`  job ${r.jobId}: ${r.reason ?? '(no reason)'}`);
  }
  return lines.join('\n');
}
