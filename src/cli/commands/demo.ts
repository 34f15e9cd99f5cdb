import { join } from 'node:path';
import { EXIT } from '../../kernel/errors.js';
import { defineCommand } from '../command.js';

/** `queue-drill demo`: producers and workers as real processes, one worker SIGKILLed mid-job, and what happened. */
export const demoCommand = defineCommand({
  name: 'demo',
  describe: 'a short run of real worker processes over the embedded SQLite store, with one crash',
  options: {
    jobs: { type: 'number', default: 40, describe: 'how many jobs the producers enqueue' },
    workers: { type: 'number', default: 3, describe: 'how many worker processes (the first is SIGKILLed mid-job and restarted)' },
    'lease-ms': {
      type: 'number',
      default: 600,
      describe: "how long a worker's lease on a job lasts: the crashed worker's job is taken back after it",
    },
    seed: { type: 'number', default: 1, describe: "seed of the workers' retry jitter" },
    dir: { type: 'string', describe: 'run directory [default: drill-runs/demo-<UTC time>]' },
    'timeout-ms': { type: 'number', default: 60_000, describe: 'give up when a stage of the demo takes longer than this' },
  },
  async run(args) {
    const { runDemo } = await import('../../demo/run-demo.js');
    const dir = args.dir ?? join('drill-runs', `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    const result = await runDemo(
      { dir, jobs: args.jobs, workers: args.workers, leaseMs: args['lease-ms'], seed: args.seed, jobMs: 15, timeoutMs: args['timeout-ms'] },
      (line) => process.stdout.write(`${line}\n`),
    );
    process.exitCode = result.ok ? EXIT.ok : EXIT.violated;
  },
});
