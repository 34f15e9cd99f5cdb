import type { JobStatus } from '../../kernel/vocabulary.js';

/**
 * pg-boss 10's job states in the drill's words. `failed` (and `cancelled`,
 * which the drill never asks for) is review: nothing in pg-boss moves a job
 * out of it but a call (`retry`, `resume`), which in a drill only a person
 * makes. `retry` is a job waiting for its next attempt, except after a
 * person's `boss.retry()` of a failed job: pg-boss puts it in the same state
 * but leaves its `completed_on` set (a failed attempt's fail clears it), and
 * the drill reads that job as pending, requeued from review.
 */
export function statusOf(state: string, completedOn: Date | string | null): JobStatus {
  switch (state) {
    case 'created':
      return 'pending';
    case 'retry':
      return completedOn === null ? 'retry' : 'pending';
    case 'active':
      return 'running';
    case 'completed':
      return 'done';
    case 'failed':
    case 'cancelled':
      return 'review';
    default:
      // A state pg-boss 10 does not have: shown as the nearest that cannot pass for finished.
      return 'pending';
  }
}
