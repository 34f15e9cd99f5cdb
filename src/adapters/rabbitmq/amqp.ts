import { type ChannelModel, connect } from 'amqplib';
import { InputError } from '../../kernel/errors.js';
import { LOCAL_SERVERS } from '../../port/servers.js';
import { describeCause, maskUrl } from '../pg/connection.js';

/** How long a reachability check waits for the broker's answer. */
const CONNECT_TIMEOUT_MS = 3_000;

/** The broker to use: the one given, else $QD_AMQP_URL, else the local default. An empty value counts as not given. */
export function resolveAmqpUrl(explicit?: string): string {
  if (explicit !== undefined && explicit !== '') return explicit;
  const fromEnv = process.env.QD_AMQP_URL;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : LOCAL_SERVERS.amqpUrl;
}

/** A URL fit for a log or a report: its password hidden. */
export function maskAmqpUrl(url: string): string {
  return maskUrl(url);
}

/** RabbitMQ did not answer: bad input to the drill, exit 2, one line. */
export class RabbitmqUnreachableError extends InputError {
  readonly code = 'QD_RABBITMQ_UNREACHABLE';
  constructor(url: string, cause: unknown) {
    super(`cannot connect to RabbitMQ at ${maskAmqpUrl(url)}: ${describeCause(cause, url, maskAmqpUrl)}`, { cause });
  }
}

/**
 * A connection with the heartbeat the drill asks for (seconds; 0 leaves the
 * server's). The heartbeat is what RabbitMQ finds a frozen consumer by: it
 * closes a connection that sent nothing for about two of them, and gives its
 * unacknowledged messages back to the queue.
 */
export async function openAmqp(url: string, heartbeatSeconds: number): Promise<ChannelModel> {
  const target = new URL(url);
  if (heartbeatSeconds > 0) target.searchParams.set('heartbeat', String(heartbeatSeconds));
  const connection = await connect(target.toString(), { timeout: CONNECT_TIMEOUT_MS });
  // Errors reach the operation that meets them; without a listener an 'error' event would end the process.
  connection.on('error', () => {});
  return connection;
}

/** Throws RabbitmqUnreachableError unless the broker at `url` accepts a connection within the timeout. */
export async function assertRabbitmqReachable(url: string): Promise<void> {
  try {
    const connection = await openAmqp(url, 0);
    await connection.close();
  } catch (error) {
    throw new RabbitmqUnreachableError(url, error);
  }
}
