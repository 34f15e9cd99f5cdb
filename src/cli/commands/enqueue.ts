import { existsSync, readFileSync } from 'node:fs';
import { UsageError } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';
import { observedQueue } from '../observed-queue.js';
import { QUEUE_OPTIONS } from '../queue-options.js';

/** `queue-drill enqueue`: validates a plan and enqueues it as one job; prints whether it was created. */
export const enqueueCommand = defineCommand({
  name: 'enqueue',
  describe: 'enqueue a plan job (a JSON plan of steps, validated first)',
  fast: true,
  options: {
    ...QUEUE_OPTIONS,
    plan: { type: 'string', demandOption: true, describe: 'the plan as JSON text, or a file holding it' },
    key: { type: 'string', describe: "idempotency key [default: derived from the plan with the queue sketch's key]" },
    'max-attempts': { type: 'number', default: 3, describe: 'attempts the job may take; after the last it goes to review' },
    'workflow-version': { type: 'string', default: 'queue-drill-plan-v1', describe: 'the workflow version, part of the derived key' },
  },
  async run(args) {
    const { enqueuePlan } = await import('../../saga/enqueue-plan.js');
    const text = existsSync(args.plan) ? readFileSync(args.plan, 'utf8') : args.plan;
    let plan: unknown;
    try {
      plan = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--plan is neither a file nor JSON: ${(error as Error).message}`);
    }
    // Enqueueing is how a store file comes to be: it need not exist yet.
    const queue = await observedQueue(args, { mustExist: false });
    try {
      const result = await enqueuePlan(queue, { plan, key: args.key, maxAttempts: args['max-attempts'], workflowVersion: args['workflow-version'] });
      process.stdout.write(`${JSON.stringify({ event: 'enqueued', ...result, created: result.outcome === 'created' })}\n`);
    } finally {
      await queue.close();
    }
  },
});
