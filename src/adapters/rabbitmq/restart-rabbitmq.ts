import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { answeringAgain, assertOnThisMachine } from '../server-restart.js';
import { assertRabbitmqReachable, maskAmqpUrl } from './amqp.js';

const run = promisify(execFile);

/**
 * Restarts the RabbitMQ a URL points at, as an operator would: `rabbitmqctl
 * stop` (a clean shutdown: quorum queues and persistent messages are on
 * disk), then `rabbitmq-server -detached`, the command this machine starts it
 * with, and waits until it takes connections again. Only a broker on this
 * machine: the harness never restarts a server it cannot see.
 */
export async function restartRabbitmq(url: string): Promise<string> {
  assertOnThisMachine(url, 'RabbitMQ');
  const started = Date.now();
  await run('rabbitmqctl', ['stop']);
  await run('rabbitmq-server', ['-detached']);
  await answeringAgain(() => assertRabbitmqReachable(url), started);
  return `RabbitMQ at ${maskAmqpUrl(url)} restarted (rabbitmqctl stop, then rabbitmq-server -detached), answering again after ${Date.now() - started} ms`;
}
