import { jetstreamManager } from '@nats-io/jetstream';
import { connect as connectNats } from '@nats-io/transport-node';
import { connect as connectAmqp } from 'amqplib';
import { LOCAL_SERVERS } from '../../src/port/servers.js';

/*
 * RabbitMQ and NATS with JetStream, as the tests use them ($QD_AMQP_URL,
 * $QD_NATS_URL, else the local ones), and whether each answered. When one did
 * not, the gate of its tests skips them and prints one line saying which and
 * why, unless the brokers are required: QD_REQUIRE_BROKERS=1 (.ci/run sets
 * it), or a CI service (CI set) unless QD_REQUIRE_BROKERS=0; then the import
 * fails, and every test file that needs a broker with it.
 */

export const AMQP_URL = process.env.QD_AMQP_URL || LOCAL_SERVERS.amqpUrl;
export const NATS_URL = process.env.QD_NATS_URL || LOCAL_SERVERS.natsUrl;

/** Whether these tests must have the brokers (see above). */
export function brokersRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const require = env.QD_REQUIRE_BROKERS ?? '';
  if (require !== '') return require === '1';
  const ci = (env.CI ?? '').toLowerCase();
  return ci !== '' && ci !== '0' && ci !== 'false';
}

/** Why `server` did not answer, or '' when it did; throws where the brokers are required. */
async function unreachable(server: string, check: () => Promise<void>): Promise<string> {
  try {
    await check();
    return '';
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    if (brokersRequired())
      throw new Error(`${server} is required here (QD_REQUIRE_BROKERS=1, or CI set) and did not answer: ${why}`, { cause: error });
    return why || 'no answer';
  }
}

const rabbitmqMissing = await unreachable('RabbitMQ', async () => {
  const connection = await connectAmqp(AMQP_URL, { timeout: 3000 });
  await connection.close();
});

const natsMissing = await unreachable('NATS with JetStream', async () => {
  const nc = await connectNats({ servers: NATS_URL, timeout: 3000, reconnect: false });
  try {
    await (await jetstreamManager(nc)).getAccountInfo();
  } finally {
    await nc.close();
  }
});

function skipWhen(missing: string, server: string, what: string): boolean {
  if (missing === '') return false;
  console.warn(`${server} not reachable, so skipped: ${what}. ${missing} (set QD_REQUIRE_BROKERS=1 to fail instead)`);
  return true;
}

/** The gate of tests that need RabbitMQ: `describe.skipIf(skipWithoutRabbitmq('the RabbitMQ adapter'))`. */
export function skipWithoutRabbitmq(what: string): boolean {
  return skipWhen(rabbitmqMissing, 'RabbitMQ', what);
}

/** The gate of tests that need NATS with JetStream: `describe.skipIf(skipWithoutNats('the JetStream adapter'))`. */
export function skipWithoutNats(what: string): boolean {
  return skipWhen(natsMissing, 'NATS with JetStream', what);
}
