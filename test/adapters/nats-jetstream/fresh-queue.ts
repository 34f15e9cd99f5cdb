import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { natsJetstreamAdapter } from '../../../src/adapters/nats-jetstream/nats-jetstream-adapter.js';
import { systemClock } from '../../../src/kernel/clock.js';
import { seededRandom } from '../../../src/kernel/random.js';
import type { Provisioned, QueueConnection, RetryDelayPolicy } from '../../../src/port/adapter.js';
import type { QueueOptionValues } from '../../../src/port/queue-options.js';
import { NATS_URL } from '../../helpers/brokers.js';
import { tempRunDir } from '../../helpers/run-dir.js';

/** What a test may change of a fresh queue. */
export interface FreshOptions {
  leaseMs?: number;
  maxAttempts?: readonly number[];
  options?: QueueOptionValues;
  retryDelay?: RetryDelayPolicy;
}

/**
 * A JetStream stream of its own on the local server, connected as a drill's
 * process would be (no retry delay unless asked); every step that undoes it
 * (the connection, the stream, the run directory) is pushed on `cleanup`, to
 * run in reverse.
 */
export async function freshNatsQueue(
  name: string,
  cleanup: Array<() => Promise<void> | void>,
  fresh: FreshOptions = {},
): Promise<{ queue: QueueConnection; provisioned: Provisioned; connect: () => Promise<QueueConnection> }> {
  const dir = tempRunDir(`nats-${name}`);
  cleanup.push(dir.remove);
  const provisioned = await natsJetstreamAdapter.provision({
    runDir: dir.dir,
    runId: `test nats ${name} ${process.pid}`,
    servers: { natsUrl: NATS_URL },
    ...(fresh.options ? { options: fresh.options } : {}),
    ...(fresh.maxAttempts ? { maxAttempts: fresh.maxAttempts } : {}),
  });
  cleanup.push(() => provisioned.teardown({ keep: false }));
  const connectOne = async () => {
    const queue = await natsJetstreamAdapter.connect(provisioned.locator, {
      clock: systemClock(),
      random: seededRandom(1),
      leaseMs: fresh.leaseMs ?? 300,
      skewMarginMs: 50,
      retryDelay: fresh.retryDelay ?? { baseMs: 0, capMs: 0, jitterMs: 0 },
      servers: { natsUrl: NATS_URL },
      env: provisioned.env,
      ...(fresh.options ? { queueOptions: fresh.options } : {}),
    });
    cleanup.push(() => queue.close());
    return queue;
  };
  return { queue: await connectOne(), provisioned, connect: connectOne };
}

/** The names of the streams on the local server. */
export async function streamNames(): Promise<string[]> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    return names;
  } finally {
    await nc.close();
  }
}
