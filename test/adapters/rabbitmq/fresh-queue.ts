import { rabbitmqAdapter } from '../../../src/adapters/rabbitmq/rabbitmq-adapter.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { QueueConnection } from '../../../src/port/adapter.js';
import { AMQP_URL } from '../../helpers/brokers.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/**
 * A RabbitMQ queue of its own on the local broker, declared for jobs of
 * `maxAttempts` and connected as the harness connects (the provisioned
 * environment handed in); every step that undoes it (the connection, the
 * queues, the run directory) is pushed on `cleanup`, to run in reverse.
 */
export async function freshRabbitmqQueue(
  name: string,
  maxAttempts: readonly number[],
  cleanup: Array<() => Promise<void> | void>,
): Promise<{ queue: QueueConnection; locator: string }> {
  const dir = tempRunDir(`rabbitmq-${name}`);
  cleanup.push(dir.remove);
  const provisioned = await rabbitmqAdapter.provision({
    runDir: dir.dir,
    runId: `test rabbitmq ${name} ${process.pid}`,
    servers: { amqpUrl: AMQP_URL },
    maxAttempts,
  });
  cleanup.push(() => provisioned.teardown({ keep: false }));
  const queue = await rabbitmqAdapter.connect(provisioned.locator, {
    clock: systemClock(),
    random: seededRandom(1),
    leaseMs: 3_000,
    skewMarginMs: 100,
    retryDelay: { baseMs: 0, capMs: 0, jitterMs: 0 },
    servers: { amqpUrl: AMQP_URL },
    env: provisioned.env,
  });
  cleanup.push(() => queue.close());
  return { queue, locator: provisioned.locator };
}
