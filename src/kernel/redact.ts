/*
 * Nothing secret is written to the store, a log or a report: every error text
 * passes through here first. Known secret values (from the job's payload) are
 * replaced wherever they appear; well-known shapes (bearer tokens, key=value
 * credentials, cookies, API keys, JWTs, card numbers) are replaced by pattern.
 */

export const REDACTED = '[REDACTED]';

/** The queue sketch kept the last 500 characters of an error; so do we, after redaction. */
export const MAX_ERROR_LENGTH = 500;

/** Words that name a secret inside a longer name (db_password, apiKey, session_token). */
const SECRET_WORDS = 'pass(?:word|wd|phrase)?|pwd|secret|secret[-_]?key|token|api[-_]?key|access[-_]?key|private[-_]?key|session|credential';

const SECRET_NAME = new RegExp(`(${SECRET_WORDS}|auth(?:orization)?|cookie|card(?:number)?|cvv)s?$`, 'i');

const SHAPES: Array<[RegExp, string]> = [
  // Authorization: Bearer abc / Basic abc
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  // Cookie and Set-Cookie headers: the whole value
  [/\b(set-cookie|cookie)\s*:\s*[^\r\n]+/gi, `$1: ${REDACTED}`],
  // "password": "x" (or a number) in JSON text
  [
    new RegExp(`("(?:[A-Za-z0-9_-]*)(?:${SECRET_WORDS}|authorization|cookie)s?"\\s*:\\s*)(?:"(?:[^"\\\\]|\\\\.)*"|-?\\d[\\d.eE+-]*)`, 'gi'),
    `$1"${REDACTED}"`,
  ],
  // password="x y", 'api_key': 'x' (a Python repr), password: 'x' (a Node inspect): a quoted value, whole
  [new RegExp(`\\b([A-Za-z0-9_-]*(?:${SECRET_WORDS})s?['"]?)(\\s*[=:]\\s*)(["'])(?:\\\\.|(?!\\3)[^\\\\])*\\3`, 'gi'), `$1$2$3${REDACTED}$3`],
  // password=x, api_key: x, token=x in text, URLs and headers
  [new RegExp(`\\b([A-Za-z0-9_-]*(?:${SECRET_WORDS})s?['"]?)(\\s*[=:]\\s*)([^\\s&;,'"]+)`, 'gi'), `$1$2${REDACTED}`],
  // user:password@ in URLs, up to the last @ of the authority (a password may hold an unescaped @)
  [/(\/\/[^/\s:@]+):[^/?#\s]+@/g, `$1:${REDACTED}@`],
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
  let out = text;
  // Longest first, so a secret that contains another is replaced whole.
  for (const secret of [...knownSecrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  for (const [pattern, replacement] of SHAPES) out = out.replace(pattern, replacement);
  return out.replace(DIGIT_RUN, redactCards);
}

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
  const visit = (value: unknown, name: string | null): void => {
    if (typeof value === 'string') {
      if ((name !== null && SECRET_NAME.test(name)) || redact(value) !== value) found.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, name);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) visit(item, key);
    }
  };
  visit(payload, null);
  return [...found];
}
