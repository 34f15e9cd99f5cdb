import { InputError } from './errors.js';
// A JSON reader that yields exactly what Python 3.11's json.loads yields, so JSON text can be
// re-serialized byte for byte as Python would (see canonical-json.ts). JSON.parse cannot do this:
// it turns 1.0 into 1, rounds big integers, and rejects NaN/Infinity that Python accepts.

/** Python float. In a PyJson tree a JS number is always a float, never an int. */
export type PyFloat = number;
/** Python int: exact, any size. */
export type PyInt = bigint;
/** Python dict. Map.set on an existing key replaces the value but keeps the first position, like dict. */
export type PyObject = Map<string, PyJson>;
/** Python list. */
export type PyArray = PyJson[];
/** A value as json.loads returns it: None, bool, int, float, str, list or dict. */
export type PyJson = null | boolean | PyInt | PyFloat | string | PyArray | PyObject;

// Python has no fixed nesting limit: it raises RecursionError when its 1000-frame recursion limit
// is hit, so the exact depth depends on the caller's stack. 993 is what make_idempotency_key
// survives when called from a top-level script. It also keeps our recursive parser far from the
// JS stack limit.
/** Deepest container nesting that parsePythonJson and fromJsValue accept. */
export const MAX_DEPTH = 993;

/** Python 3.11 refuses int <-> str conversion of more than this many digits (sys.int_info.default_max_str_digits). */
export const PY_INT_MAX_STR_DIGITS = 4300;

/** Why a text or value was rejected. */
export type PythonJsonErrorCode =
  | 'UNEXPECTED_BOM'
  | 'EXPECTING_VALUE'
  | 'EXTRA_DATA'
  | 'EXPECTING_PROPERTY_NAME'
  | 'EXPECTING_COLON'
  | 'EXPECTING_COMMA'
  | 'UNTERMINATED_STRING'
  | 'INVALID_CONTROL_CHARACTER'
  | 'INVALID_ESCAPE'
  | 'INVALID_UNICODE_ESCAPE'
  | 'INT_TOO_LONG'
  | 'TOO_DEEP'
  | 'UNREPRESENTABLE_SURROGATES'
  | 'UNSUPPORTED_VALUE'
  | 'CIRCULAR_REFERENCE';

/** Error thrown by parsePythonJson and fromJsValue: a stable code, plus where (text offset or value path). */
export class PythonJsonError extends InputError {
  override readonly name = 'PythonJsonError';
  readonly code: PythonJsonErrorCode;
  /** Index into the JSON text, in UTF-16 code units (JS string index), for parse errors. */
  readonly offset: number | undefined;
  /** Location in the converted value, such as `$["a"][2]`, for fromJsValue errors. */
  readonly path: string | undefined;

  constructor(code: PythonJsonErrorCode, message: string, where: { offset?: number; path?: string } = {}) {
    super(message);
    this.code = code;
    this.offset = where.offset;
    this.path = where.path;
  }
}

/** Parse JSON text as Python's json.loads(text) does (default strict=True), or throw PythonJsonError. */
export function parsePythonJson(text: string): PyJson {
  return new Parser(text).parseDocument();
}

// A JS number cannot say whether it was written 1 or 1.0, so a safe integer becomes an int and
// anything else a float. That differs from json.loads(JSON.stringify(value)) for integral numbers
// beyond 2**53 (JSON.stringify(1e20) is "100000000000000000000", an int for Python): when the JSON
// text exists, hash the text with parsePythonJson instead.
/** Convert an ordinary JS value (JSON.parse output, plain objects, Maps, arrays, bigint) into a PyJson tree. */
export function fromJsValue(value: unknown): PyJson {
  return convert(value, '$', new Set());
}

// The one-character escapes JSON defines (Python accepts no others, e.g. no \x or \').
const ESCAPES = new Map([
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isHighSurrogate(cp: number): boolean {
  return cp >= 0xd800 && cp <= 0xdbff;
}

function isLowSurrogate(cp: number): boolean {
  return cp >= 0xdc00 && cp <= 0xdfff;
}

// Mirrors the state machine of CPython's C scanner (Modules/_json.c), which json.loads uses.
class Parser {
  private pos = 0;
  private depth = 0;
  // Where Python would hold a lone high surrogate followed by a lone low one (see appendCodePoint).
  private unrepresentableAt: number | undefined;

  constructor(private readonly text: string) {}

  parseDocument(): PyJson {
    if (this.text.startsWith('\ufeff')) this.fail('UNEXPECTED_BOM', 'Unexpected UTF-8 BOM (decode using utf-8-sig)');
    this.skipWhitespace();
    const value = this.parseValue();
    this.skipWhitespace();
    if (this.pos !== this.text.length) this.fail('EXTRA_DATA', 'Extra data');
    // Reported only after a successful parse: Python's json.loads succeeds here and the failure
    // comes later, when the str is encoded to UTF-8, so syntax errors must take precedence.
    if (this.unrepresentableAt !== undefined) {
      this.fail(
        'UNREPRESENTABLE_SURROGATES',
        'A lone high surrogate followed by a lone low surrogate cannot be told apart from a surrogate pair in a JS string ' +
          '(Python would keep both and then fail to encode them as UTF-8)',
        this.unrepresentableAt,
      );
    }
    return value;
  }

  private fail(code: PythonJsonErrorCode, what: string, offset = this.pos): never {
    const before = this.text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    throw new PythonJsonError(code, `${what} at offset ${offset} (line ${line}, column ${column})`, { offset });
  }

  private skipWhitespace(): void {
    // Python's JSON whitespace is exactly these four characters.
    for (;;) {
      const c = this.text.charAt(this.pos);
      if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') return;
      this.pos++;
    }
  }

  private consumeWord(word: string): boolean {
    if (!this.text.startsWith(word, this.pos)) return false;
    this.pos += word.length;
    return true;
  }

  private parseValue(): PyJson {
    switch (this.text.charAt(this.pos)) {
      case '"':
        return this.parseString();
      case '{':
        return this.parseObject();
      case '[':
        return this.parseArray();
      case 'n':
        if (this.consumeWord('null')) return null;
        break;
      case 't':
        if (this.consumeWord('true')) return true;
        break;
      case 'f':
        if (this.consumeWord('false')) return false;
        break;
      case 'N':
        if (this.consumeWord('NaN')) return NaN;
        break;
      case 'I':
        if (this.consumeWord('Infinity')) return Infinity;
        break;
      case '-':
        if (this.consumeWord('-Infinity')) return -Infinity;
        break;
    }
    const number = this.parseNumber();
    if (number === undefined) this.fail('EXPECTING_VALUE', 'Expecting value');
    return number;
  }

  // Grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, ASCII digits only. An incomplete
  // fraction or exponent is left unread, so "01", "1." or "1e" then fail as extra data.
  private parseNumber(): PyInt | PyFloat | undefined {
    const text = this.text;
    const start = this.pos;
    let i = start;
    if (text.charAt(i) === '-') i++;
    if (text.charAt(i) === '0') {
      i++;
    } else if (isDigit(text.charCodeAt(i))) {
      while (isDigit(text.charCodeAt(i))) i++;
    } else {
      return undefined;
    }
    let isFloat = false;
    if (text.charAt(i) === '.' && isDigit(text.charCodeAt(i + 1))) {
      isFloat = true;
      i += 1;
      while (isDigit(text.charCodeAt(i))) i++;
    }
    if (text.charAt(i) === 'e' || text.charAt(i) === 'E') {
      let j = i + 1;
      if (text.charAt(j) === '+' || text.charAt(j) === '-') j++;
      if (isDigit(text.charCodeAt(j))) {
        while (isDigit(text.charCodeAt(j))) j++;
        isFloat = true;
        i = j;
      }
    }
    const lexeme = text.slice(start, i);
    if (isFloat) {
      this.pos = i;
      // Number() rounds correctly, like Python's float(): same double, Infinity on overflow, -0 kept.
      return Number(lexeme);
    }
    const digits = lexeme.startsWith('-') ? lexeme.length - 1 : lexeme.length;
    if (digits > PY_INT_MAX_STR_DIGITS) {
      this.fail('INT_TOO_LONG', `Integer has ${digits} digits, over Python's limit of ${PY_INT_MAX_STR_DIGITS}`, start);
    }
    this.pos = i;
    return BigInt(lexeme); // "-0" becomes 0n, as Python's int("-0") is 0
  }

  private parseString(): string {
    const start = this.pos;
    this.pos++; // opening quote
    let out = '';
    // True when the last code point appended is, for Python, a lone high surrogate.
    let lastWasLoneHigh = false;
    const appendCodePoint = (cp: number, at: number): void => {
      // Python keeps the two as separate code points, but once in a JS string they read as one
      // valid pair: the tree would silently differ from Python's, so remember to refuse it.
      if (lastWasLoneHigh && isLowSurrogate(cp)) this.unrepresentableAt ??= at;
      out += String.fromCodePoint(cp);
      lastWasLoneHigh = isHighSurrogate(cp);
    };

    for (;;) {
      const at = this.pos;
      const cp = this.text.codePointAt(at);
      if (cp === undefined) this.fail('UNTERMINATED_STRING', 'Unterminated string starting', start);
      if (cp === 0x22) {
        this.pos++;
        return out;
      }
      if (cp < 0x20) this.fail('INVALID_CONTROL_CHARACTER', 'Invalid control character');
      if (cp !== 0x5c) {
        this.pos += cp > 0xffff ? 2 : 1;
        appendCodePoint(cp, at);
        continue;
      }
      // Backslash escape.
      if (at + 1 >= this.text.length) this.fail('UNTERMINATED_STRING', 'Unterminated string starting', start);
      const escaped = this.text.charAt(at + 1);
      if (escaped !== 'u') {
        const decoded = ESCAPES.get(escaped);
        if (decoded === undefined) this.fail('INVALID_ESCAPE', `Invalid \\escape ${JSON.stringify(escaped)}`);
        this.pos += 2;
        appendCodePoint(decoded.charCodeAt(0), at);
        continue;
      }
      let unit = this.readHex4(at + 2);
      this.pos = at + 6;
      // Like Python, join an escaped high surrogate with an immediately following escaped low one.
      if (isHighSurrogate(unit) && this.text.startsWith('\\u', this.pos)) {
        const next = this.readHex4(this.pos + 2);
        if (isLowSurrogate(next)) {
          unit = 0x10000 + ((unit - 0xd800) << 10) + (next - 0xdc00);
          this.pos += 6;
        }
      }
      appendCodePoint(unit, at);
    }
  }

  private readHex4(offset: number): number {
    const hex = this.text.slice(offset, offset + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('INVALID_UNICODE_ESCAPE', 'Invalid \\uXXXX escape', offset - 1);
    return parseInt(hex, 16);
  }

  private enterContainer(): void {
    this.depth++;
    if (this.depth > MAX_DEPTH) this.fail('TOO_DEEP', `Nesting deeper than ${MAX_DEPTH} levels`);
    this.pos++; // opening bracket
    this.skipWhitespace();
  }

  private parseObject(): PyObject {
    this.enterContainer();
    const object: PyObject = new Map();
    if (this.text.charAt(this.pos) === '}') {
      this.pos++;
      this.depth--;
      return object;
    }
    for (;;) {
      if (this.text.charAt(this.pos) !== '"') {
        this.fail('EXPECTING_PROPERTY_NAME', 'Expecting property name enclosed in double quotes');
      }
      const key = this.parseString();
      this.skipWhitespace();
      if (this.text.charAt(this.pos) !== ':') this.fail('EXPECTING_COLON', "Expecting ':' delimiter");
      this.pos++;
      this.skipWhitespace();
      object.set(key, this.parseValue()); // duplicate key: last value wins, first position kept
      this.skipWhitespace();
      const delimiter = this.text.charAt(this.pos);
      if (delimiter === '}') break;
      if (delimiter !== ',') this.fail('EXPECTING_COMMA', "Expecting ',' delimiter");
      this.pos++;
      this.skipWhitespace();
    }
    this.pos++;
    this.depth--;
    return object;
  }

  private parseArray(): PyArray {
    this.enterContainer();
    const array: PyArray = [];
    if (this.text.charAt(this.pos) === ']') {
      this.pos++;
      this.depth--;
      return array;
    }
    for (;;) {
      array.push(this.parseValue());
      this.skipWhitespace();
      const delimiter = this.text.charAt(this.pos);
      if (delimiter === ']') break;
      if (delimiter !== ',') this.fail('EXPECTING_COMMA', "Expecting ',' delimiter");
      this.pos++;
      this.skipWhitespace();
    }
    this.pos++;
    this.depth--;
    return array;
  }
}

function convert(value: unknown, path: string, ancestors: Set<object>): PyJson {
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return value;
    case 'number':
      return Number.isSafeInteger(value) ? BigInt(value) : value;
    case 'object':
      if (value === null) return null;
      break;
    default:
      throw unsupported(value, path);
  }

  const isArray = Array.isArray(value);
  const isMap = value instanceof Map;
  const proto: unknown = Object.getPrototypeOf(value);
  if (!isArray && !isMap && proto !== Object.prototype && proto !== null) throw unsupported(value, path);
  if (ancestors.has(value)) {
    throw new PythonJsonError('CIRCULAR_REFERENCE', `Circular reference detected at ${path}`, { path });
  }
  if (ancestors.size >= MAX_DEPTH) {
    throw new PythonJsonError('TOO_DEEP', `Nesting deeper than ${MAX_DEPTH} levels at ${path}`, { path });
  }

  ancestors.add(value);
  let result: PyJson;
  if (isArray) {
    result = Array.from(value, (item, i) => convert(item, `${path}[${i}]`, ancestors));
  } else {
    const entries: Iterable<[unknown, unknown]> = isMap ? value : Object.entries(value);
    const object: PyObject = new Map();
    for (const [key, item] of entries) {
      if (typeof key !== 'string') throw unsupported(key, `${path} (key)`);
      object.set(key, convert(item, `${path}${JSON.stringify([key])}`, ancestors));
    }
    result = object;
  }
  ancestors.delete(value);
  return result;
}

function unsupported(value: unknown, path: string): PythonJsonError {
  const kind = typeof value === 'object' ? Object.prototype.toString.call(value) : typeof value;
  return new PythonJsonError('UNSUPPORTED_VALUE', `Cannot represent ${kind} as Python JSON at ${path}`, { path });
}
