import { systemClock } from '../../kernel/clock.js';
import { DEFAULT_LEASE_MS, DEFAULT_SKEW_MARGIN_MS } from '../../kernel/defaults.js';
import { seededRandom } from '../../kernel/random.js';
import { loadOneQueue } from '../../queues/load-one-queue.js';
import { WorldClient } from '../../world/client.js';
import { defineCommand } from '../command.js';
import { localUrl } from '../paths.js';
import { stopOnSignals } from '../stop-signal.js';

/** `queue-drill coordinator`: the transaction sketch's transaction coordinator as a process, until SIGTERM. */
export const coordinatorCommand = defineCommand({
  name: 'coordinator',
  describe: 'sweep expired leases (reconciling what dead workers left in doubt) and compensate failed sagas',
  fast: true,
  options: {
    queue: { type: 'string', default: 'reference', describe: 'the queue implementation (queue-drill queues lists them)' },
    store: { type: 'string', demandOption: true, describe: 'where the queue is: the SQLite file, or the PostgreSQL schema (the URL from QD_PG_URL)' },
    world: { type: 'string', demandOption: true, describe: 'base URL of the world service' },
    id: { type: 'string', default: 'coordinator', describe: 'its id, written as the holder of the leases and sagas it takes over' },
    'lease-ms': { type: 'number', default: DEFAULT_LEASE_MS, describe: 'how long it holds a saga it compensates' },
    'skew-margin-ms': { type: 'number', default: DEFAULT_SKEW_MARGIN_MS, describe: 'slack before an expired lease is taken back' },
    'tick-ms': { type: 'number', default: 100, describe: 'how often it looks' },
    'call-timeout-ms': { type: 'number', default: 2_000, describe: 'a call to the world without an answer by then has an unknown outcome' },
    seed: { type: 'number', default: 1, describe: 'seed of the retry jitter of the jobs it sends back' },
  },
  async run(args) {
    const { runCoordinator } = await import('../../coordinator/coordinator.js');
    const { useClock } = await import('../../faults/failpoint.js');
    const clock = systemClock();
    // The harness measures this clock before any stamp of it reaches the queue (src/kernel/time-base.ts).
    useClock(clock);
    const stop = stopOnSignals();
    const world = new WorldClient(localUrl(args.world, '--world'), { timeoutMs: args['call-timeout-ms'] });
    try {
      await runCoordinator({
        locator: args.store,
        queue: await loadOneQueue(args.queue),
        id: args.id,
        world,
        clock,
        random: seededRandom(args.seed),
        leaseMs: args['lease-ms'],
        skewMarginMs: args['skew-margin-ms'],
        tickMs: args['tick-ms'],
        stop: stop.signal,
      });
    } finally {
      world.close();
      stop.dispose();
    }
  },
});
