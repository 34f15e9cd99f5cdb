import { shellWord } from '../kernel/printed-command.js';
import type { ServerSettings } from '../port/adapter.js';

/*
 * The servers a replay must reach, as its command line gives them: a replay
 * that dropped `--pg-url` would drill the default server instead of the one
 * the run used. A URL's password is never printed: it stands as an
 * environment variable the shell fills in, `${QD_PG_PASSWORD?set
 * QD_PG_PASSWORD to ...}`, which stops the command with that message where
 * the variable is not set. The reference is double-quoted (the shell expands
 * it, and a password holding spaces or quotes stays one word); the rest of the
 * URL is quoted as every printed word is.
 */

/** Each server flag, the setting it carries, and the variable its password is read from. */
const SERVER_FLAGS = [
  { flag: '--pg-url', setting: 'pgUrl', variable: 'QD_PG_PASSWORD', server: 'PostgreSQL' },
  { flag: '--redis-url', setting: 'redisUrl', variable: 'QD_REDIS_PASSWORD', server: 'Redis' },
  { flag: '--amqp-url', setting: 'amqpUrl', variable: 'QD_AMQP_PASSWORD', server: 'RabbitMQ' },
  { flag: '--nats-url', setting: 'natsUrl', variable: 'QD_NATS_PASSWORD', server: 'NATS' },
] as const satisfies ReadonlyArray<{ flag: string; setting: keyof ServerSettings; variable: string; server: string }>;

/** Where a URL's password is: in its user part (`u:PW@`, up to the authority's last @) and in a `password=` parameter. */
function passwordSpans(url: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0];
  if (scheme !== undefined) {
    const rest = url.slice(scheme.length);
    const end = rest.search(/[/?#]/);
    const authority = end < 0 ? rest : rest.slice(0, end);
    const at = authority.lastIndexOf('@');
    const colon = at < 0 ? -1 : authority.slice(0, at).indexOf(':');
    if (colon >= 0 && colon + 1 < at) spans.push({ start: scheme.length + colon + 1, end: scheme.length + at });
  }
  for (const match of url.matchAll(/[?&]password=([^&#]*)/gi)) {
    const start = match.index + match[0].length - match[1]!.length;
    if (match[1] !== '') spans.push({ start, end: start + match[1]!.length });
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** A server's URL as one shell word, every password in it replaced by a reference to `variable` that says to set it when unset. */
export function urlWordWithoutPassword(url: string, variable: string, server: string): string {
  const reference = `"\${${variable}?set ${variable} to the ${server} password}"`;
  let word = '';
  let from = 0;
  for (const span of passwordSpans(url)) {
    if (span.start > from) word += shellWord(url.slice(from, span.start));
    word += reference;
    from = span.end;
  }
  if (from < url.length) word += shellWord(url.slice(from));
  return word;
}

/**
 * The server flags of a replay, as shell text: those given on the command line
 * (`servers`, the flags alone: the environment and the scenario file reach the
 * replay by themselves) for the servers the queue `needs`.
 */
export function replayServerFlags(servers: ServerSettings, needs: readonly (keyof ServerSettings)[]): string[] {
  return SERVER_FLAGS.flatMap(({ flag, setting, variable, server }) => {
    const url = servers[setting];
    if (url === undefined || url === '' || !needs.includes(setting)) return [];
    return [flag, urlWordWithoutPassword(url, variable, server)];
  });
}
