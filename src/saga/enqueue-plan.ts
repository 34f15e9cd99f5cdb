import type { Clock } from '../kernel/clock.js';
import { makeIdempotencyKey } from '../kernel/idempotency-key.js';
import { fromJsValue } from '../kernel/python-json.js';
import type { Random } from '../kernel/random.js';
import { SqliteQueue } from '../adapters/sqlite/sqlite-queue.js';
import { parsePlan } from './plan.js';

/**
 * Validates a plan (zod, every problem with its path) and enqueues it as one
 * `plan` job. Without a key, the key is seed 000's, over the plan itself, so
 * the same plan enqueued twice is one job.
 */
export function enqueuePlan(
  store: { store: string; clock: Clock; random: Random },
  input: { plan: unknown; key?: string | undefined; maxAttempts: number; workflowVersion: string },
): { created: boolean; jobId: number; key: string } {
  const plan = parsePlan(input.plan);
  const key =
    input.key ??
    makeIdempotencyKey({ repo: 'queue-drill/plans', branch: 'main', action: 'plan', payload: fromJsValue(plan), workflowVersion: input.workflowVersion });
  const queue = SqliteQueue.open(store.store, { clock: store.clock, random: store.random });
  try {
    const result = queue.enqueue({ key, action: 'plan', payload: { plan }, maxAttempts: input.maxAttempts });
    return { ...result, key };
  } finally {
    queue.close();
  }
}
