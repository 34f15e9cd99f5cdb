import { systemClock } from '../../kernel/clock.js';
import { UsageError } from '../../kernel/errors.js';
import { seededRandom } from '../../kernel/random.js';
import { loadOneQueue } from '../../queues/load-one-queue.js';
import { defineCommand } from '../command.js';

/** `queue-drill producer`: enqueues a deterministic batch of jobs and prints what it created as JSON. */
export const producerCommand = defineCommand({
  name: 'producer',
  describe: 'enqueue a deterministic batch of jobs (two producers with the same options race on every key)',
  fast: true,
  options: {
    store: { type: 'string', demandOption: true, describe: 'where the queue is: the SQLite file, or the PostgreSQL schema (the URL from QD_PG_URL)' },
    count: { type: 'number', describe: 'how many demo jobs' },
    jobs: { type: 'string', describe: 'a JSON file of plan jobs [{key, plan, maxAttempts}] to enqueue instead' },
    name: { type: 'string', default: 'producer', describe: 'the name failpoints see' },
    queue: { type: 'string', default: 'reference', describe: 'the queue implementation (queue-drill queues lists them)' },
    'start-barrier': {
      type: 'string',
      describe:
        'with --jobs: a start barrier directory; say ready there and begin when the harness lets every producer go, so they race from one instant',
    },
    start: { type: 'number', default: 0, describe: 'number of the first job' },
    action: {
      type: 'string',
      default: 'record',
      choices: ['record', 'sleep', 'fail'],
      describe: 'what the demo jobs do: record an effect, sleep, or fail (payload kind and failAttempts say how)',
    },
    payload: { type: 'string', default: '{}', describe: 'extra payload fields as a JSON object' },
    'max-attempts': { type: 'number', default: 3, describe: 'attempts each job may take; after the last it goes to review' },
    'workflow-version': { type: 'string', default: 'queue-drill-demo-v1', describe: "the workflow version, part of each demo job's key" },
  },
  async run(args) {
    if ((args.count === undefined) === (args.jobs === undefined)) throw new UsageError('give either --count or --jobs');
    if (args.jobs !== undefined) {
      const { producePlans } = await import('../../producer/produce-plans.js');
      await producePlans({
        locator: args.store,
        jobsFile: args.jobs,
        queue: await loadOneQueue(args.queue),
        clock: systemClock(),
        random: seededRandom(1),
        name: args.name,
        write: (line) => process.stdout.write(line),
        barrier: args['start-barrier'],
      });
      return;
    }
    let extra: unknown;
    try {
      extra = JSON.parse(args.payload);
    } catch (error) {
      throw new UsageError(`--payload must be a JSON object: ${(error as Error).message}`);
    }
    if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) throw new UsageError('--payload must be a JSON object');
    // Loaded only here: demo jobs' keys are hashed (node:crypto), and a drill's producers, given --jobs, never make one.
    const { produce } = await import('../../producer/producer.js');
    const result = await produce({
      queue: await loadOneQueue(args.queue),
      locator: args.store,
      clock: systemClock(),
      random: seededRandom(1),
      start: args.start,
      count: args.count!,
      action: args.action,
      payload: extra as Record<string, unknown>,
      maxAttempts: args['max-attempts'],
      workflowVersion: args['workflow-version'],
    });
    process.stdout.write(`${JSON.stringify({ event: 'produced', pid: process.pid, created: result.created, existing: result.existing })}\n`);
  },
});
