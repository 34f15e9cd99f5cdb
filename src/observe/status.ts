import { parseUtc } from '../kernel/clock.js';
import { JOB_STATUSES, type JobStatus } from '../kernel/vocabulary.js';
import type { QueueConnection } from '../port/adapter.js';
import { approveCommandFor, historyCommandFor, ledgerBeside, type QueueAddress } from '../port/queue-address.js';

/** The queue sketch's observability list, computed from the queue alone. */
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
  review: Array<{ jobId: string; reason: string | null; lastError: string | null; awaitingApproval: boolean }>;
  incidents: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** The queue's vital signs. */
export async function queueStatus(queue: QueueConnection): Promise<QueueStatus> {
  const { jobs, history } = await queue.snapshot();
  const claims = history.filter((e) => e.kind === 'transition' && e.to === 'running').length;
  const doneAt = new Map(history.filter((e) => e.kind === 'transition' && e.to === 'done').map((e) => [e.jobId, parseUtc(e.at)]));
  const durations = jobs
    .filter((job) => doneAt.has(job.id))
    .map((job) => doneAt.get(job.id)! - parseUtc(job.createdAt))
    .sort((a, b) => a - b);
  const counts = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  for (const job of jobs) counts[job.status]++;
  return {
    counts,
    jobs: jobs.length,
    retryRate: claims === 0 ? 0 : (claims - jobs.filter((j) => j.attempts > 0).length) / claims,
    reviewRate: jobs.length === 0 ? 0 : counts.review / jobs.length,
    completionMs: durations.length === 0 ? null : { p50: percentile(durations, 50), p95: percentile(durations, 95), max: durations.at(-1)! },
    leaseTimeouts: history.filter((e) => e.kind === 'transition' && e.from === 'running' && /^lease of .* expired/.test(e.reason)).length,
    refusedWrites: history.filter((e) => e.kind === 'refused').length,
    review: jobs
      .filter((j) => j.status === 'review')
      .map((j) => ({ jobId: j.id, reason: j.reviewReason, lastError: j.lastError, awaitingApproval: j.outcome === 'awaiting_approval' })),
    incidents: (await queue.saga.incidents()).length,
  };
}

/** The status as lines a person reads; given where the queue is, each job in review with the commands that approve it (if it waits for that) and show it. */
export function renderStatus(status: QueueStatus, address?: QueueAddress): string {
  const c = status.counts;
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `jobs: ${status.jobs}  pending ${c.pending}  running ${c.running}  retry ${c.retry}  done ${c.done}  review ${c.review}  compensating ${c.compensating}`,
    `retry rate ${pct(status.retryRate)}  review rate ${pct(status.reviewRate)}  lease timeouts ` +
      `${status.leaseTimeouts}  refused writes ${status.refusedWrites}  incidents ${status.incidents}`,
    status.completionMs
      ? `completion time: p50 ${status.completionMs.p50} ms  p95 ${status.completionMs.p95} ms  max ${status.completionMs.max} ms`
      : 'completion time: no job done yet',
  ];
  if (status.review.length > 0) {
    lines.push('in review:');
    for (const r of status.review) {
      lines.push(`  job ${r.jobId}: ${r.reason ?? '(no reason)'}`);
      if (address && r.awaitingApproval) lines.push(`    approve: ${approveCommandFor(address, r.jobId)}`);
      if (address) lines.push(`    history: ${historyCommandFor(address, r.jobId, ledgerBeside(address))}`);
    }
  }
  return lines.join('\n');
}
