import type pg from 'pg';
import { InputError } from '../../kernel/errors.js';
import { redact } from '../../kernel/redact.js';
import { LOCAL_SERVERS } from '../../port/servers.js';

/** Where the drills look for PostgreSQL when nobody says: the local server, trust auth. */
export const DEFAULT_PG_URL = LOCAL_SERVERS.pgUrl;

/** How long a reachability check waits for a connection (and for its one query). */
export const CONNECT_TIMEOUT_MS = 3_000;

/** The server to use: the one given, else $QD_PG_URL, else the local default. An empty value counts as not given. */
export function resolvePgUrl(explicit?: string): string {
  if (explicit !== undefined && explicit !== '') return explicit;
  const fromEnv = process.env.QD_PG_URL;
  return fromEnv !== undefined && fromEnv !== '' ? fromEnv : DEFAULT_PG_URL;
}

/** The password of a URL's user part (as written, and percent-decoded), or none. */
function passwordsIn(url: string): string[] {
  const userinfo = splitAuthority(url)?.userinfo;
  const colon = userinfo?.indexOf(':') ?? -1;
  if (userinfo === undefined || colon < 0) return [];
  const raw = userinfo.slice(colon + 1);
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: the raw text is the only form.
  }
  return [...new Set([raw, decoded])].filter((p) => p !== '');
}

/** `scheme://` and the user part of a URL's authority (up to its last @: a password may hold an unescaped one). */
function splitAuthority(url: string): { scheme: string; userinfo: string; rest: string } | undefined {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0];
  if (scheme === undefined) return undefined;
  const afterScheme = url.slice(scheme.length);
  const end = afterScheme.search(/[/?#]/);
  const authority = end < 0 ? afterScheme : afterScheme.slice(0, end);
  const at = authority.lastIndexOf('@');
  if (at < 0) return undefined;
  return { scheme, userinfo: authority.slice(0, at), rest: afterScheme.slice(at) };
}

/** A URL fit for a log or a report: `postgres://u:***@host/db` (a `password=` parameter is hidden too). */
export function maskUrl(url: string): string {
  const parts = splitAuthority(url);
  let out = url;
  if (parts) {
    const colon = parts.userinfo.indexOf(':');
    if (colon >= 0) out = `${parts.scheme}${parts.userinfo.slice(0, colon)}:***${parts.rest}`;
  }
  return out.replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** One line of what went wrong reaching the server at `url`, with nothing of the URL's secret in it (`mask` hides it where the text repeats the URL). */
export function describeCause(cause: unknown, url: string, mask: (url: string) => string = maskUrl): string {
  let text: string;
  if (cause instanceof AggregateError && cause.message === '' && cause.errors.length > 0) {
    // Node's happy-eyeballs connect fails with every address's error and no message of its own.
    text = [...new Set(cause.errors.map((e: unknown) => (e instanceof Error ? e.message : String(e))))].join('; ');
  } else if (cause instanceof Error) {
    text = cause.message !== '' ? cause.message : ((cause as { code?: string }).code ?? cause.name);
  } else {
    text = String(cause);
  }
  return redact(text.split(url).join(mask(url)), passwordsIn(url))
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim();
}

/** PostgreSQL could not be reached (or would not let us in): bad input to the drill, exit 2, one line. */
export class PgUnreachableError extends InputError {
  readonly code = 'QD_PG_UNREACHABLE';
  /** The URL with its password hidden. */
  readonly where: string;
  constructor(url: string, cause: unknown) {
    super(`cannot connect to PostgreSQL at ${maskUrl(url)}: ${describeCause(cause, url)}`, { cause });
    this.where = maskUrl(url);
  }
}

/**
 * A single connection with a short connect timeout, for the short jobs
 * (checking, provisioning); a connection that cannot be made is a
 * PgUnreachableError, a failure of `work` is its own.
 */
export async function withPgClient<T>(url: string, work: (client: pg.Client) => Promise<T>, timeoutMs = CONNECT_TIMEOUT_MS): Promise<T> {
  // The driver is loaded here, not at the top: every process on another queue imports this file through the registry.
  const { default: driver } = await import('pg');
  let client: pg.Client;
  try {
    client = new driver.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, application_name: 'queue-drill' });
  } catch (error) {
    // A URL the driver cannot even parse.
    throw new PgUnreachableError(url, error);
  }
  // An error on an idle connection is reported to the query that meets it; without a listener it would crash the process.
  client.on('error', () => {});
  try {
    try {
      await client.connect();
    } catch (error) {
      throw new PgUnreachableError(url, error);
    }
    return await work(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Throws PgUnreachableError unless the server at `url` answers `SELECT 1` within the timeout. */
export async function assertPgReachable(url: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<void> {
  await withPgClient(
    url,
    async (client) => {
      try {
        await client.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig);
      } catch (error) {
        throw new PgUnreachableError(url, error);
      }
    },
    timeoutMs,
  );
}
