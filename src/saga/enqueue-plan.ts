import { makeIdempotencyKey } from '../kernel/idempotency-key.js';
import { fromJsValue } from '../kernel/python-json.js';
import type { EnqueueResult, QueueConnection } from '../port/adapter.js';
import { parsePlan } from './plan.js';

/**
 * Validates a plan (zod, every problem with its path) and enqueues it as one
 * `plan` job. Without a key, the key is seed 000's, over the plan itself, so
 * the same plan enqueued twice is one job.
 */
export async function enqueuePlan(
  queue: QueueConnection,
  input: { plan: unknown; key?: string | undefined; maxAttempts: number; workflowVersion: string },
): Promise<EnqueueResult & { key: string }> {
  const plan = parsePlan(input.plan);
  const key =
    input.key ??
    makeIdempotencyKey({ repo: 'queue-drill/plans', branch: 'main', action: 'plan', payload: fromJsValue(plan), workflowVersion: input.workflowVersion });
  const result = await queue.enqueue({ key, action: 'plan', payload: JSON.stringify({ plan }), maxAttempts: input.maxAttempts });
  return { ...result, key };
}
