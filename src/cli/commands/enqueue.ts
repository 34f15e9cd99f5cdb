import { existsSync, readFileSync } from 'node:fs';
import { systemClock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import { defineCommand } from '../command.js';
import { UsageError } from '../../kernel/errors.js';

/** `queue-drill enqueue`: validates a plan and enqueues it as one job; prints whether it was created. */
export const enqueueCommand = defineCommand({
  name: 'enqueue',
  describe: 'enqueue a plan job (a JSON plan of steps, validated first)',
  fast: true,
  options: {
    store: { type: 'string', demandOption: true },
    plan: { type: 'string', demandOption: true, describe: 'the plan as JSON text, or a file holding it' },
    key: { type: 'string', describe: 'idempotency key [default: derived from the plan with seed 000\'s key]' },
    'max-attempts': { type: 'number', default: 3 },
    'workflow-version': { type: 'string', default: 'queue-drill-plan-v1' },
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
    const result = enqueuePlan(
      { store: args.store, clock: systemClock(), random: seededRandom(1) },
      { plan, key: args.key, maxAttempts: args['max-attempts'], workflowVersion: args['workflow-version'] },
    );
    process.stdout.write(`${JSON.stringify({ event: 'enqueued', ...result })}\n`);
  },
});
