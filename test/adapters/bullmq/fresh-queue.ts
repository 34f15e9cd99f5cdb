import { bullmqAdapter } from '../../../src/adapters/bullmq/bullmq-adapter.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { QueueConnection } from '../../../src/port/adapter.js';
import { REDIS_URL } from '../../helpers/redis.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/**
 * A BullMQ queue of its own on the local Redis, connected as a drill's process
 * would be (no retry delay); every step that undoes it (the connection, the
 * key prefix, the run directory) is pushed on `cleanup`, to run in reverse.
 */
export async function freshBullmqQueue(
  name: string,
  lease: { leaseMs: number; skewMarginMs: number },
  cleanup: Array<() => Promise<void> | void>,
): Promise<QueueConnection> {
  const dir = tempRunDir(`bullmq-${name}`);
  cleanup.push(dir.remove);
  const provisioned = await bullmqAdapter.provision({
    runDir: dir.dir,
    runId: `test bullmq ${name} ${process.pid}`,
    servers: { redisUrl: REDIS_URL },
  });
  cleanup.push(() => provisioned.teardown({ keep: false }));
  const queue = await bullmqAdapter.connect(provisioned.locator, {
    clock: systemClock(),
    random: seededRandom(1),
    ...lease,
    retryDelay: { baseMs: 0, capMs: 0, jitterMs: 0 },
    servers: { redisUrl: REDIS_URL },
  });
  cleanup.push(() => queue.close());
  return queue;
}
