import { systemClock } from '../../kernel/clock.js';
import { DEFAULT_LEASE_MS, DEFAULT_SKEW_MARGIN_MS } from '../../kernel/defaults.js';
import { seededRandom } from '../../kernel/random.js';
import { SEED_RETRY_DELAY } from '../../port/retry-delay.js';
import { loadOneQueue } from '../../queues/load-one-queue.js';
import { effectLogFor } from '../../worker/effect-log.js';
import { runWorker } from '../../worker/worker.js';
import { WorldClient } from '../../world/client.js';
import { defineCommand } from '../command.js';
import { localUrl } from '../paths.js';
import { stopOnSignals } from '../stop-signal.js';

/** `queue-drill worker`: one worker process on a store file, until SIGTERM (or drained). */
export const workerCommand = defineCommand({
  name: 'worker',
  describe: 'run a worker process on a queue store',
  fast: true,
  options: {
    queue: { type: 'string', default: 'reference', describe: 'the queue implementation (queue-drill queues lists them)' },
    store: { type: 'string', demandOption: true, describe: 'where the queue is: the SQLite file, or the PostgreSQL schema (the URL from QD_PG_URL)' },
    id: { type: 'string', demandOption: true, describe: 'the worker id written to leases and history' },
    'effect-log': { type: 'string', describe: 'where applied effects are recorded [default: STORE.effects.jsonl]' },
    'lease-ms': {
      type: 'number',
      default: DEFAULT_LEASE_MS,
      describe: 'how long a claim holds its job before another worker may take it back (renewed while it runs)',
    },
    'skew-margin-ms': { type: 'number', default: DEFAULT_SKEW_MARGIN_MS, describe: 'slack before an expired lease is taken back' },
    'poll-ms': { type: 'number', default: 25, describe: 'wait between looks when nothing is ready' },
    seed: { type: 'number', default: 1, describe: 'seed of the retry jitter' },
    'clock-skew-ms': { type: 'number', default: 0, describe: "shift this worker's clock (a skew fault)" },
    'retry-base-ms': { type: 'number', default: SEED_RETRY_DELAY.baseMs, describe: 'delay before the first retry, doubled on each later one' },
    'retry-cap-ms': { type: 'number', default: SEED_RETRY_DELAY.capMs, describe: 'the longest retry delay, before jitter' },
    'retry-jitter-ms': {
      type: 'number',
      default: SEED_RETRY_DELAY.jitterMs,
      describe: 'up to this much is added to each retry delay, drawn from --seed',
    },
    'exit-when-drained': { type: 'boolean', default: false, describe: 'stop once nothing is pending, retrying or running' },
    'max-jobs': { type: 'number', default: 0, describe: 'stop after this many jobs (0: no limit)' },
    'max-attempt-ms': { type: 'number', describe: 'an attempt renews its lease for this long at most [default: 10 leases]' },
    world: { type: 'string', describe: 'base URL of the world service, for plan jobs (http://127.0.0.1:PORT)' },
    'call-timeout-ms': { type: 'number', default: 2_000, describe: 'a call to the world without an answer by then has an unknown outcome' },
  },
  async run(args) {
    const stop = stopOnSignals();
    const world = args.world === undefined ? null : new WorldClient(localUrl(args.world, '--world'), { timeoutMs: args['call-timeout-ms'] });
    try {
      await runWorker({
        locator: args.store,
        queue: await loadOneQueue(args.queue),
        id: args.id,
        effectLog: args['effect-log'] ?? effectLogFor(args.store),
        clock: systemClock(args['clock-skew-ms']),
        random: seededRandom(args.seed),
        leaseMs: args['lease-ms'],
        skewMarginMs: args['skew-margin-ms'],
        retryDelay: { baseMs: args['retry-base-ms'], capMs: args['retry-cap-ms'], jitterMs: args['retry-jitter-ms'] },
        pollMs: args['poll-ms'],
        exitWhenDrained: args['exit-when-drained'],
        maxJobs: args['max-jobs'],
        maxAttemptMs: args['max-attempt-ms'] ?? 10 * args['lease-ms'],
        stop: stop.signal,
        world,
        // Only a worker that calls a world waits on one.
        ...(world ? { callTimeoutMs: args['call-timeout-ms'] } : {}),
      });
    } finally {
      world?.close();
      stop.dispose();
    }
  },
});
