import { encodedSpellings, MIN_ENCODED_SECRET } from './encoded-spellings.js';

/*
 * Nothing secret is written to the store, a log or a report: every error text
 * passes through here first. Known secret values (from the job's payload) are
 * replaced wherever they appear, in every spelling; well-known shapes
 * (authorization headers of any scheme, bearer tokens, key=value credentials,
 * credentials in a URL's query string, cookies, API keys, JWTs, PEM private
 * keys, card numbers) are replaced by pattern.
 */

export const REDACTED = '[REDACTED]';

/** The queue sketch kept the last 500 characters of an error; so do we, after redaction. */
export const MAX_ERROR_LENGTH = 500;

/** Words that name a secret inside a longer name (db_password, apiKey, session_token). */
const SECRET_WORDS = 'pass(?:word|wd|phrase)?|pwd|secret|secret[-_]?key|token|api[-_]?key|access[-_]?key|private[-_]?key|session|credential';

const SECRET_NAME = new RegExp(`(${SECRET_WORDS}|auth(?:orization)?|cookie|card(?:number)?|cvv)s?$`, 'i');

/** Whether a name (a payload's key, a command line's flag) names a secret: it ends in a secret word (db_password, apiKey, --auth-token). */
export function namesSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Whether the key found at `offset` ends a path (`/etc/passwd: no such file`): a file's name, not a credential's. It
 * does when a `/` stands before it in the same word. Looked for once a key is found, not by a lookbehind, which would
 * scan back through every long word at every position.
 */
function endsAPath(text: string, offset: number): boolean {
  let at = offset - 1;
  while (at >= 0 && offset - at < 256 && /[A-Za-z0-9_.~-]/.test(text[at]!)) at--;
  return text[at] === '/';
}

/** `key<sep>value` as a replacement gives it, unless the key ends a path: then what follows it is redacted on its own. */
function unlessAPath(redacted: (key: string, separator: string, quote: string) => string): Replacement {
  return (match: string, ...rest: unknown[]) => {
    const [key, separator, quote] = rest as string[];
    const offset = rest[rest.length - 2] as number;
    const text = rest[rest.length - 1] as string;
    if (!endsAPath(text, offset)) return redacted(key!, separator!, quote ?? '');
    // `/etc/passwd: password=x`: the value the path seemed to have may hold a credential of its own.
    const head = key!.length + separator!.length;
    return match.slice(0, head) + redact(match.slice(head));
  };
}

/** Query parameters that carry credentials in URLs, besides the secret words (a presigned URL's signature, an OAuth code). */
const QUERY_SECRETS = `${SECRET_WORDS}|sig|signature|key|apikey|auth|code|credentials?|x-amz-signature|x-amz-credential|x-goog-signature`;

/** The schemes an Authorization header names before its credentials (kept: they say what kind of secret was there). */
const AUTH_SCHEMES = 'bearer|basic|token|digest|negotiate|ntlm|apikey|api-key|jwt|oauth|aws4-hmac-sha256';

// A header's value runs to the line's end, quotes and escapes included (Digest's username="u", response="..."), but
// stops at a quote that closes a JSON string (followed by `,"`, `}`, `]` or the end): the header may sit inside a
// log line, whose structure must survive.
const HEADER_VALUE = String.raw`(?:\\.|[^\r\n\\"]|"(?!,?\s*"|\s*[}\]]|\s*$))+`;

/** What a shape is replaced with: a replacement string, or a function of the match and its groups. */
type Replacement = string | ((match: string, ...groups: string[]) => string);

const SHAPES: Array<[RegExp, Replacement]> = [
  // PEM private keys, however many lines they span
  [/-----BEGIN ((?:[A-Z]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, REDACTED],
  // Authorization and Proxy-Authorization headers, whatever the scheme (Bearer, Basic, Token, Digest, AWS4-HMAC-SHA256): the
  // whole value but the scheme's name
  [
    new RegExp(`\\b((?:proxy-)?authorization)(\\s*:\\s*)(?:(${AUTH_SCHEMES})\\s+)?${HEADER_VALUE}`, 'gi'),
    (_match: string, header: string, colon: string, scheme: string | undefined) => `${header}${colon}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  ],
  // Bearer abc / Basic abc anywhere else
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // Cookie and Set-Cookie headers: the whole value
  [new RegExp(`\\b(set-cookie|cookie)\\s*:\\s*${HEADER_VALUE}`, 'gi'), `$1: ${REDACTED}`],
  // ?api_key=x&sig=y in a URL's query string
  [new RegExp(`([?&](?:[A-Za-z0-9_.-]*?)(?:${QUERY_SECRETS})[A-Za-z0-9_.-]*=)([^&#\\s'"]+)`, 'gi'), `$1${REDACTED}`],
  // "password": "x" (or a number) in JSON text
  [
    new RegExp(`("(?:[A-Za-z0-9_-]*)(?:${SECRET_WORDS}|authorization|cookie)s?"\\s*:\\s*)(?:"(?:[^"\\\\]|\\\\.)*"|-?\\d[\\d.eE+-]*)`, 'gi'),
    `$1"${REDACTED}"`,
  ],
  // password="x y", 'api_key': 'x' (a Python repr), password: 'x' (a Node inspect): a quoted value, whole
  [
    new RegExp(`\\b([A-Za-z0-9_-]*(?:${SECRET_WORDS})s?['"]?)(\\s*[=:]\\s*)(["'])(?:\\\\.|(?!\\3)[^\\\\])*\\3`, 'gi'),
    unlessAPath((key, separator, quote) => `${key}${separator}${quote}${REDACTED}${quote}`),
  ],
  // password=x, api_key: x, token=x in text, URLs and headers
  [
    new RegExp(`\\b([A-Za-z0-9_-]*(?:${SECRET_WORDS})s?['"]?)(\\s*[=:]\\s*)([^\\s&;,'"]+)`, 'gi'),
    unlessAPath((key, separator) => `${key}${separator}${REDACTED}`),
  ],
  // user:password@ in URLs, up to the last @ of the authority (a password may hold an unescaped @); the user may be
  // empty (redis://:password@host)
  [/(\/\/[^/\s:@]*):[^/?#\s]+@/g, `$1:${REDACTED}@`],
  // JWTs
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, REDACTED],
  // Provider keys: OpenAI-style sk-, GitHub, Slack, AWS access key ids
  [/\b(sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, REDACTED],
  // Stripe secret and restricted keys
  [/\b(sk|rk)_(live|test)_[A-Za-z0-9]{10,}/g, REDACTED],
  [/\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
];

// A run of 13 or more digits, optionally grouped by single spaces or dashes: it
// may hold a card number (13 to 19 digits that pass the Luhn check) beside other
// numbers ("4111 1111 1111 1111 12 27"), so the run is searched, not just checked.
const DIGIT_RUN = /\b\d(?:[ -]?\d){12,}\b/g;

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Replaces each card number in a digit run: the longest Luhn-valid stretch of whole groups, 13 to 19 digits, earliest first. */
function redactCards(run: string): string {
  const groups = [...run.matchAll(/\d+/g)].map((m) => ({ digits: m[0], start: m.index, end: m.index + m[0].length }));
  let out = '';
  let copied = 0;
  for (let i = 0; i < groups.length; i++) {
    const start = groups[i]!.start;
    let last = -1;
    let digits = '';
    for (let j = i; j < groups.length; j++) {
      digits += groups[j]!.digits;
      if (digits.length > 19) break;
      if (digits.length >= 13 && luhnValid(digits)) last = j;
    }
    if (last < 0) continue;
    out += run.slice(copied, start) + REDACTED;
    copied = groups[last]!.end;
    i = last;
  }
  return out + run.slice(copied);
}

/** Replaces known secret values and secret-shaped text by a marker. */
export function redact(text: string, knownSecrets: readonly string[] = []): string {
  let out = redactKnown(text, knownSecrets);
  for (const [pattern, replacement] of SHAPES)
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement);
  return out.replace(DIGIT_RUN, redactCards);
}

/** Replaces known secret values alone, no shape: for text whose other words must stay as they are (a report's statuses, a fencing token). */
export function redactKnown(text: string, knownSecrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is replaced whole; in every spelling it takes once written into
  // JSON (a log line: a newline in it becomes \n) or a URL.
  for (const secret of [...knownSecrets].sort((a, b) => b.length - a.length)) {
    if (secret.length < 4) continue;
    for (const spelling of secretSpellings(secret)) out = out.split(spelling).join(REDACTED);
  }
  return out;
}

/**
 * The spellings a secret takes in stored text: as is, JSON-escaped (once and
 * twice: JSON inside a JSON log line), URL-encoded; and, for a secret long
 * enough to be told from chance, each of those base64-, base64url- and
 * hex-encoded, as a queue that stores a payload encoded would hold it
 * (./encoded-spellings.ts). Longest first.
 */
export function secretSpellings(secret: string): string[] {
  const cached = spellingsCache.get(secret);
  if (cached) return cached;
  const json = JSON.stringify(secret).slice(1, -1);
  const plain = [secret, json, JSON.stringify(json).slice(1, -1)];
  try {
    plain.push(encodeURIComponent(secret));
  } catch {
    // A lone surrogate cannot be URL-encoded; the other spellings still count.
  }
  const encoded = secret.length >= MIN_ENCODED_SECRET ? [secret, json].flatMap(encodedSpellings) : [];
  const spellings = [...new Set([...plain, ...encoded])].sort((a, b) => b.length - a.length);
  if (spellingsCache.size > 1_000) spellingsCache.clear();
  spellingsCache.set(secret, spellings);
  return spellings;
}

const spellingsCache = new Map<string, string[]>();

/** An error as it may be stored: redacted, then cut to the last MAX_ERROR_LENGTH characters. */
export function storableError(error: unknown, knownSecrets: readonly string[] = []): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const clean = redact(text, knownSecrets);
  return clean.length > MAX_ERROR_LENGTH ? clean.slice(-MAX_ERROR_LENGTH) : clean;
}

/**
 * The secret values inside a payload: strings under secret-sounding names, and
 * strings of a secret shape anywhere, so they can be redacted wherever they leak.
 */
export function secretsInPayload(payload: unknown): string[] {
  const found = new Set<string>();
  // Under a secret-sounding name, everything is secret: `credentials: { user, value }` holds two.
  const visit = (value: unknown, name: string | null, underSecret: boolean): void => {
    const secret = underSecret || (name !== null && namesSecret(name));
    if (typeof value === 'string') {
      if (secret || redact(value) !== value) found.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, name, secret);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, key, secret);
    }
  };
  visit(payload, null, false);
  return [...found];
}
