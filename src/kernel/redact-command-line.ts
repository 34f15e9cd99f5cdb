import { namesSecret, REDACTED, redact } from './redact.js';

/*
 * A command line as a report may keep it. A person gives secrets on it in three
 * ways, and each is replaced wherever it stands, as a word of its own or inside
 * a quoted word (`--queue 'process:python3 q.py --token abc'`: a queue's own
 * command line is one word of queue-drill's):
 *
 *   - a password in a server's URL (`--pg-url postgres://app:pw@db/q`);
 *   - a `key=value` whose key names a secret (`api_token=abc`);
 *   - the value after a flag that names a secret (`--auth-token abc`, `-password=abc`).
 *
 * The other shapes redact() knows (an `sk_live_` key, a bearer token) go too. A
 * flag whose name ends in another word (`--token-file /run/x`, `--baseline
 * /etc/passwd`) keeps its value: a path is not a secret.
 */

/**
 * A flag, and (looked at, not taken: a value may be a quoted command line with flags of its own) its value, quoted
 * or bare: after `=` whatever it is, after blanks a word that is not another flag (`--no-auth --seed 3`).
 */
const FLAG_AND_VALUE = /(^|[\s'"])(--?[A-Za-z][A-Za-z0-9_-]*)(=|\s+)(?=('[^']*'|"(?:[^"\\]|\\.)*"|(?<==)[^\s'"]+|[^\s'"-][^\s'"]*))/g;

/** A password in a URL's authority (the user may be empty): what redact() replaces, found to be named. */
const URL_PASSWORD = /\/\/[^/\s:@'"]*:([^/?#\s'"]+)@/g;

/** A `key=value` whose key names a secret, the value bare or quoted. */
const KEY_AND_VALUE = /(?<![/\w.~-])([A-Za-z_][A-Za-z0-9_.-]*)=('[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"&;]+)/g;

const unquoted = (value: string): string => (/^(['"]).*\1$/s.test(value) ? value.slice(1, -1) : value);

/** Where the value of each flag that names a secret stands, outermost first (one quoted inside another's value is in it). */
function secretFlagValues(line: string): Array<{ start: number; end: number; value: string }> {
  const found: Array<{ start: number; end: number; value: string }> = [];
  for (const match of line.matchAll(FLAG_AND_VALUE)) {
    const [whole, , flag, , value] = match;
    if (!namesSecret(flag!.replace(/^-+/, ''))) continue;
    const start = match.index + whole.length;
    if (found.length > 0 && start < found[found.length - 1]!.end) continue;
    found.push({ start, end: start + value!.length, value: value! });
  }
  return found;
}

/**
 * The secret values a command line holds, as they are written in it: so that a
 * text which repeats them (an error quoting the queue's command) can lose them too.
 */
export function commandLineSecrets(line: string): string[] {
  const found = new Set<string>(secretFlagValues(line).map(({ value }) => unquoted(value)));
  for (const match of line.matchAll(KEY_AND_VALUE)) if (namesSecret(match[1]!)) found.add(unquoted(match[2]!));
  for (const match of line.matchAll(URL_PASSWORD)) found.add(match[1]!);
  return [...found].filter((secret) => secret !== '' && secret !== REDACTED);
}

/** The command line with every secret it holds (see the top of this file) replaced by a marker. */
export function redactCommandLine(line: string): string {
  let flagged = line;
  for (const { start, end } of secretFlagValues(line).reverse()) flagged = `${flagged.slice(0, start)}${REDACTED}${flagged.slice(end)}`;
  const keyed = flagged.replace(KEY_AND_VALUE, (whole, key: string) => (namesSecret(key) ? `${key}=${REDACTED}` : whole));
  return redact(keyed);
}
