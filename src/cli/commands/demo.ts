import type { CommandModule } from 'yargs';
import { join } from 'node:path';
import { runDemo } from '../../demo/run-demo.js';
import { EXIT } from '../errors.js';

interface DemoArgs {
  jobs: number;
  workers: number;
  'lease-ms': number;
  seed: number;
  dir?: string;
  'timeout-ms': number;
}

/** `queue-drill demo`: producers and workers as real processes, one worker SIGKILLed mid-job, and what happened. */
export const demoCommand: CommandModule<object, DemoArgs> = {
  command: 'demo',
  describe: 'a short run of real worker processes over the embedded SQLite store, with one crash',
  builder: (y) =>
    y
      .option('jobs', { type: 'number', default: 40 })
      .option('workers', { type: 'number', default: 3 })
      .option('lease-ms', { type: 'number', default: 600 })
      .option('seed', { type: 'number', default: 1 })
      .option('dir', { type: 'string', describe: 'run directory [default: drill-runs/demo-<UTC time>]' })
      .option('timeout-ms', { type: 'number', default: 60_000 }) as never,
  handler: async (args) => {
    const dir = args.dir ?? join('drill-runs', `demo-${new Date().toISOString().replace(/[:.]/g, '-')}`);
    const result = await runDemo(
      { dir, jobs: args.jobs, workers: args.workers, leaseMs: args['lease-ms'], seed: args.seed, jobMs: 15, timeoutMs: args['timeout-ms'] },
      (line) => process.stdout.write(`${line}\n`),
    );
    process.exitCode = result.ok ? EXIT.ok : EXIT.violated;
  },
};
