// Canonical JSON as Python writes it: json.dumps(value, ensure_ascii=False, sort_keys=True,
// separators=(",", ":")), then .encode("utf-8"). Hashes of this text must match Python's byte for
// byte, so every formatting rule below follows CPython 3.11's C encoder (Modules/_json.c).

import { InputError } from './errors.js';
import { PY_INT_MAX_STR_DIGITS, type PyJson } from './python-json.js';

/** Why a tree could not be written the way Python would. */
export type CanonicalJsonErrorCode = 'LONE_SURROGATE' | 'INT_TOO_LONG' | 'NOT_PY_JSON' | 'CIRCULAR_REFERENCE';

/** Error thrown where Python's json.dumps or str.encode("utf-8") would raise. */
export class CanonicalJsonError extends InputError {
  override readonly name = 'CanonicalJsonError';
  readonly code: CanonicalJsonErrorCode;
  /** For LONE_SURROGATE: index of the surrogate in the JSON text, in UTF-16 code units. */
  readonly offset: number | undefined;

  constructor(code: CanonicalJsonErrorCode, message: string, offset?: number) {
    super(message);
    this.code = code;
    this.offset = offset;
  }
}

/** Write value exactly as Python's json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")). */
export function pythonJsonDumps(value: PyJson): string {
  const parts: string[] = [];
  write(value, parts, new Set());
  return parts.join('');
}

/** The UTF-8 bytes of pythonJsonDumps(value); throws LONE_SURROGATE where Python's .encode("utf-8") fails. */
export function canonicalJsonUtf8(value: PyJson): Uint8Array {
  return encodeUtf8Strict(pythonJsonDumps(value));
}

/** UTF-8 encode text, refusing lone surrogates as Python's str.encode("utf-8") does (Node would write U+FFFD instead). */
export function encodeUtf8Strict(text: string): Uint8Array {
  // With the u flag a valid surrogate pair is one code point, so \p{Cs} only matches lone halves.
  const lone = /\p{Cs}/u.exec(text);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16);
    const position = Array.from(text.slice(0, lone.index)).length; // Python counts code points
    throw new CanonicalJsonError(
      'LONE_SURROGATE',
      `'utf-8' codec can't encode character '\\u${unit}' in position ${position}: surrogates not allowed`,
      lone.index,
    );
  }
  return new TextEncoder().encode(text);
}

/** Python's repr(float): shortest round-trip digits, fixed notation for exponents -4..15, else scientific. */
export function pythonFloatRepr(x: number): string {
  // json.dumps writes non-finite floats as these JavaScript-style literals (allow_nan=True).
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';

  const sign = x < 0 ? '-' : '';
  const { digits, exponent } = shortestDigits(Math.abs(x));
  if (exponent < -4 || exponent >= 16) {
    const mantissa = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${mantissa}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const intDigits = exponent + 1;
  if (digits.length <= intDigits) return `${sign}${digits.padEnd(intDigits, '0')}.0`;
  return `${sign}${digits.slice(0, intDigits)}.${digits.slice(intDigits)}`;
}

/**
 * For finite x > 0: the shortest digit string that round-trips, and the decimal exponent of its
 * first digit (x = d.ddd × 10^exponent). ECMAScript's Number::toString picks the same digits as
 * Python's repr: fewest digits, then the candidate closest to x.
 */
function shortestDigits(x: number): { digits: string; exponent: number } {
  const [mantissa = '', exp = '0'] = String(x).split('e'); // "123.45", "1e-7", "1.5e+21"
  const [intPart = '', fraction = ''] = mantissa.split('.');
  const all = intPart + fraction;
  const leadingZeros = all.length - all.replace(/^0+/, '').length;
  return {
    digits: all.slice(leadingZeros).replace(/0+$/, ''),
    exponent: Number(exp) + intPart.length - 1 - leadingZeros,
  };
}

// Python orders str by code point. JS's < compares UTF-16 code units, which puts astral
// characters (surrogates D800-DFFF) before U+E000..U+FFFF: the wrong way round.
function compareCodePoints(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length) {
    const ca = a.codePointAt(i) ?? 0;
    const cb = b.codePointAt(i) ?? 0;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
  }
  return a.length - b.length; // equal so far: the shorter one sorts first
}

// ensure_ascii=False: only '"', '\\' and C0 controls are escaped; DEL, non-ASCII and even lone
// surrogates are written raw.
function quoteString(s: string): string {
  return `"${s.replace(/["\\\u0000-\u001f]/g, escapeChar)}"`;
}

const SHORT_ESCAPES = new Map([
  ['"', '\\"'],
  ['\\', '\\\\'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
  ['\b', '\\b'],
  ['\f', '\\f'],
]);

function escapeChar(c: string): string {
  return SHORT_ESCAPES.get(c) ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function formatInt(n: bigint): string {
  const text = n.toString();
  const digits = n < 0n ? text.length - 1 : text.length;
  if (digits > PY_INT_MAX_STR_DIGITS) {
    throw new CanonicalJsonError('INT_TOO_LONG', `Integer has ${digits} digits, over Python's int-to-str limit of ${PY_INT_MAX_STR_DIGITS}`);
  }
  return text;
}

function write(value: PyJson, out: string[], ancestors: Set<object>): void {
  switch (typeof value) {
    case 'string':
      out.push(quoteString(value));
      return;
    case 'bigint':
      out.push(formatInt(value));
      return;
    case 'number':
      out.push(pythonFloatRepr(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
  }
  if (value === null) {
    out.push('null');
    return;
  }
  if (!Array.isArray(value) && !(value instanceof Map)) {
    throw new CanonicalJsonError('NOT_PY_JSON', `Not a PyJson value: ${Object.prototype.toString.call(value)}`);
  }
  if (ancestors.has(value)) throw new CanonicalJsonError('CIRCULAR_REFERENCE', 'Circular reference detected');
  ancestors.add(value);
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      write(value[i] as PyJson, out, ancestors); // a hole is undefined and gets rejected
    }
    out.push(']');
  } else {
    const keys = [...value.keys()];
    for (const key of keys) {
      if (typeof key !== 'string') throw new CanonicalJsonError('NOT_PY_JSON', `Dict key is not a string: ${String(key)}`);
    }
    keys.sort(compareCodePoints);
    out.push('{');
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      if (i > 0) out.push(',');
      out.push(quoteString(key), ':');
      write(value.get(key) as PyJson, out, ancestors);
    }
    out.push('}');
  }
  ancestors.delete(value);
}
