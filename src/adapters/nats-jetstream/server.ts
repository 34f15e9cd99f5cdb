import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { InputError } from '../../kernel/errors.js';
import { LOCAL_SERVERS } from '../../port/servers.js';
import { describeCause } from '../pg/connection.js';

/** Where the drills look for NATS when nobody says: the local server. */
export const DEFAULT_NATS_URL = LOCAL_SERVERS.natsUrl;

/** The environment variable the drill's processes find NATS in (never their command line: a URL may carry a password). */
export const NATS_URL_ENV = 'QD_NATS_URL';

/** How long a reachability check (and a first connect) waits for an answer. */
const CONNECT_TIMEOUT_MS = 3_000;

/** The server to use: the one given, else $QD_NATS_URL, else the local default. An empty value counts as not given. */
export function resolveNatsUrl(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit !== undefined && explicit !== '') return explicit;
  const fromEnv = env[NATS_URL_ENV];
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_NATS_URL;
}

/** A URL fit for a log or a report: its password (or token) hidden. */
export function maskNatsUrl(url: string): string {
  return url.replace(/^(nats|tls|wss?):\/\/([^:@/]*:)?[^@/]*@/i, (_all, scheme: string, user: string | undefined) => `${scheme}://${user ?? ''}***@`);
}

/** NATS (or its JetStream) did not answer: bad input to the drill, exit 2, one line. */
export class NatsUnreachableError extends InputError {
  readonly code = 'QD_NATS_UNREACHABLE';
  constructor(url: string, cause: unknown) {
    super(`cannot use NATS JetStream at ${maskNatsUrl(url)}: ${describeCause(cause, url, maskNatsUrl)}`, { cause });
  }
}

/**
 * A connection as a drill's process keeps it: it reconnects for ever, a
 * quarter second apart, so a restarted server (the restart_server fault) is
 * found again as soon as it answers; what was published meanwhile is sent then.
 */
export function openNats(url: string, name: string): Promise<NatsConnection> {
  return connect({ servers: url, name, timeout: CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
}

/** Throws NatsUnreachableError unless the server at `url` answers and has JetStream enabled. */
export async function assertNatsReachable(url: string): Promise<void> {
  let nc: NatsConnection | undefined;
  try {
    nc = await connect({ servers: url, timeout: CONNECT_TIMEOUT_MS, reconnect: false, name: 'queue-drill preflight' });
    await (await jetstreamManager(nc, { timeout: CONNECT_TIMEOUT_MS })).getAccountInfo();
  } catch (error) {
    throw new NatsUnreachableError(url, error);
  } finally {
    await nc?.close().catch(() => undefined);
  }
}
