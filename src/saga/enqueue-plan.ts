import { makeIdempotencyKey } from '../kernel/idempotency-key.js';
import { fromJsValue } from '../kernel/python-json.js';
import type { EnqueueRequest, EnqueueResult, QueueConnection } from '../port/adapter.js';
import { parsePlan } from './plan.js';

/**
 * A plan as the job that runs it: validated (zod, every problem with its
 * path), keyed (without a key given, the queue sketch's key over the plan itself, so
 * the same plan enqueued twice is one job), as a `plan` job's request.
 */
export function planJob(input: { plan: unknown; key?: string | undefined; maxAttempts: number; workflowVersion: string }): EnqueueRequest {
  const plan = parsePlan(input.plan);
  const key =
    input.key ??
    makeIdempotencyKey({
      repo: 'queue-drill/plans',
      branch: 'main',
      action: 'plan',
      payload: fromJsValue(plan),
      workflowVersion: input.workflowVersion,
    });
  return { key, action: 'plan', payload: JSON.stringify({ plan }), maxAttempts: input.maxAttempts };
}

/** Validates a plan and enqueues it as one `plan` job (see planJob). */
export async function enqueuePlan(
  queue: QueueConnection,
  input: { plan: unknown; key?: string | undefined; maxAttempts: number; workflowVersion: string },
): Promise<EnqueueResult & { key: string }> {
  const request = planJob(input);
  return { ...(await queue.enqueue(request)), key: request.key };
}
