import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CanonicalJsonError, pythonJsonDumps } from '../../src/kernel/canonical-json.js';
import {
  type IdempotencyKeyTextInput,
  makeIdempotencyKey,
  makeIdempotencyKeyFromJsonText,
  pythonLower,
  pythonStrip,
} from '../../src/kernel/idempotency-key.js';
import { fromJsValue, type PyJson, PythonJsonError, parsePythonJson } from '../../src/kernel/python-json.js';
import { PythonOracle } from '../fixtures/python-oracle.js';

const oracle = new PythonOracle();
afterAll(() => oracle.close());

const VECTOR: IdempotencyKeyTextInput = {
  repo: 'demo/payment-service',
  branch: 'main',
  action: 'generate-tests',
  payloadJson: '{"ticket":"DEV-1024","paths":["src/billing.py"]}',
  workflowVersion: '2026-08-25-v1',
};
const VECTOR_KEY = '245f159804469d525a65acef2d225664626a260192035c96602705a5e679237d';

/** Our answer in the oracle's shape: the canonical text and digest, or the Python exception name. */
function ours(input: IdempotencyKeyTextInput): { digest: string; canonical: string } | { error: string } {
  try {
    const digest = makeIdempotencyKeyFromJsonText(input);
    // Rebuilt here only to show a readable diff when digests differ.
    const canonical = pythonJsonDumps(
      new Map<string, PyJson>([
        ['repo', pythonLower(pythonStrip(input.repo))],
        ['branch', pythonStrip(input.branch)],
        ['action', input.action],
        ['payload', parsePythonJson(input.payloadJson)],
        ['workflow_version', input.workflowVersion],
      ]),
    );
    return { digest, canonical };
  } catch (error) {
    return { error: pythonExceptionName(error) };
  }
}

/** The Python exception each of our error codes stands for. */
function pythonExceptionName(error: unknown): string {
  if (error instanceof PythonJsonError) {
    const byCode: Partial<Record<PythonJsonError['code'], string>> = {
      INT_TOO_LONG: 'ValueError',
      TOO_DEEP: 'RecursionError',
      UNREPRESENTABLE_SURROGATES: 'UnicodeEncodeError',
    };
    return byCode[error.code] ?? 'JSONDecodeError';
  }
  if (error instanceof CanonicalJsonError) {
    if (error.code === 'LONE_SURROGATE') return 'UnicodeEncodeError';
    if (error.code === 'INT_TOO_LONG') return 'ValueError';
  }
  throw error;
}

async function python(input: IdempotencyKeyTextInput): Promise<{ digest: string; canonical: string } | { error: string }> {
  const reply = await oracle.request<{ digest: string; canonical: string }>({
    op: 'key',
    repo: input.repo,
    branch: input.branch,
    action: input.action,
    payload_json: input.payloadJson,
    workflow_version: input.workflowVersion,
  });
  return 'error' in reply ? { error: reply.error } : reply.ok;
}

describe('makeIdempotencyKey', () => {
  it('matches the reference test vector', () => {
    expect(makeIdempotencyKeyFromJsonText(VECTOR)).toBe(VECTOR_KEY);
    const { payloadJson, ...rest } = VECTOR;
    expect(makeIdempotencyKey({ ...rest, payload: fromJsValue(JSON.parse(payloadJson)) })).toBe(VECTOR_KEY);
  });

  it('matches python3 on the test vector too', async () => {
    expect(await python(VECTOR)).toEqual(ours(VECTOR));
  });

  it('ignores key order, JSON whitespace, repo case and surrounding whitespace', () => {
    expect(
      makeIdempotencyKeyFromJsonText({
        ...VECTOR,
        repo: ' \u3000Demo/PAYMENT-Service\u0085\u001c',
        branch: '\tmain\n',
        payloadJson: '{ "paths" : [ "src/billing.py" ] ,\r\n "ticket":"DEV-1024" }',
      }),
    ).toBe(VECTOR_KEY);
  });

  it('does not lowercase the branch, and treats U+FEFF as content (unlike String.prototype.trim)', () => {
    expect(makeIdempotencyKeyFromJsonText({ ...VECTOR, branch: 'Main' })).not.toBe(VECTOR_KEY);
    expect(makeIdempotencyKeyFromJsonText({ ...VECTOR, repo: '\ufeffdemo/payment-service' })).not.toBe(VECTOR_KEY);
  });

  const base = { repo: 'r', branch: 'b', action: 'a', workflowVersion: 'v' };
  it.each<[string, Partial<IdempotencyKeyTextInput>]>([
    [
      'unicode everywhere',
      { repo: ' Ünïcödé/ΣΟΦΙΑΣ ', branch: ' feature/日本語 ', action: 'résumé', payloadJson: '{"名前":"😀","e\\u0301":"\\u00e9"}' },
    ],
    ['nested objects', { payloadJson: '{"b":{"d":[{"z":1,"a":{"y":[],"x":{}}}],"c":null},"a":[true,false]}' }],
    ['floats', { payloadJson: '[1.0, 1e16, 1e15, 1e-5, 1e-4, 0.1, 1e400, -1e400, -0.0, 5e-324, 1.5E+300, NaN]' }],
    ['int vs float', { payloadJson: '{"int":1,"float":1.0,"neg_zero_int":-0}' }],
    ['large integers', { payloadJson: `[18446744073709551617, -18446744073709551617, ${'1234567890'.repeat(10)}]` }],
    ['escaped characters', { payloadJson: '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\\u007f\\u2028\\ud83d\\ude00"' }],
    ['raw DEL and separators', { payloadJson: '"\u007f\u2028\u2029\u0085"' }],
    ['key order with astral characters', { payloadJson: '{"\ud83d\ude00":1,"\uffff":2,"\ue000":3,"\\ud800\\udc00":4,"a":5}' }],
    ['duplicate keys', { payloadJson: '{"a":1,"b":2,"a":{"c":3,"c":4}}' }],
    ['final sigma in repo', { repo: 'ΟΔΟΣ/ΣΑΣ Σ ΑΣ. A\u0345Σ' }],
    ['dotted capital I in repo', { repo: 'İSTANBUL/KELVIN\u212a' }],
    ['Python-only whitespace', { repo: '\u001c\u001d\u001e\u001f\u0085REPO\u0085', branch: '\u001fdev\u001c' }],
    ['JS-only whitespace is kept', { repo: '\ufeffrepo\ufeff', branch: '\ufeffdev' }],
    ['characters Python 3.11 (Unicode 14) does not lowercase', { repo: '\u1c89\ua7cb\u{10d50}\u{16ea0}ΑΣ\u{10d65}' }],
    ['lone surrogate in the payload: Python raises UnicodeEncodeError', { payloadJson: '"\\ud800"' }],
    ['lone surrogate in a field', { action: 'a\ud800' }],
    ['syntax error', { payloadJson: '[1,]' }],
    ['int over 4300 digits', { payloadJson: '1'.repeat(4301) }],
  ])('agrees with python3: %s', async (_name, overrides) => {
    const input = { ...base, payloadJson: '{}', ...overrides };
    expect(ours(input)).toEqual(await python(input));
  });
});

describe('pythonStrip and pythonLower', () => {
  it('strips the str.isspace() set', () => {
    expect(pythonStrip('\u0085\u001c a b \t\u3000')).toBe('a b');
    expect(pythonStrip('\ufeffa\ufeff')).toBe('\ufeffa\ufeff');
    expect(pythonStrip('\u200ba\u200b')).toBe('\u200ba\u200b');
    expect(pythonStrip(' \n ')).toBe('');
  });

  it.each<[string, string]>([
    ['ΟΔΟΣ', 'οδος'],
    ['ΣΑΣ', 'σας'],
    ['Σ', 'σ'],
    ['ΑΣ.', 'ας.'],
    ['ΑΣ\u0345', 'ας\u0345'], // U+0345 is both cased and case-ignorable: skipped
    ['ΑΣ\u0345Α', 'ασ\u0345α'],
    ['İ', 'i\u0307'],
    ['\u0295Σ', '\u0295ς'], // ʕ is cased in Unicode 14 (Python), not in Node's newer tables
    ['Α\u{1171e}Σ', 'α\u{1171e}ς'], // U+1171E was case-ignorable in Unicode 14
    ['\ua7cb\u1c89', '\ua7cb\u1c89'], // unassigned in Unicode 14: Python leaves them alone
  ])('lowercases %j to %j like Python', (input, expected) => {
    expect(pythonLower(input)).toBe(expected);
  });

  // Guards the hand-written tables in idempotency-key.ts: a Node upgrade brings newer Unicode data.
  it('agrees with python3 on every code point (isspace, lower, final-sigma context)', async () => {
    const tables = await oracle.call<{
      isspace: number[];
      lower: Record<string, string>;
      ignorable: Array<[number, number]>;
      cased: Array<[number, number]>;
    }>({ op: 'unicode_tables' });
    const pyClass = new Map<number, string>();
    for (const [first, last] of tables.ignorable) for (let c = first; c <= last; c++) pyClass.set(c, 'ignorable');
    for (const [first, last] of tables.cased) for (let c = first; c <= last; c++) pyClass.set(c, 'cased');
    const isspace = new Set(tables.isspace);

    const mismatches: string[] = [];
    for (let c = 0; c < 0x110000; c++) {
      const ch = String.fromCodePoint(c);
      const hex = c.toString(16);
      if ((pythonStrip(`a${ch}`) === 'a') !== isspace.has(c)) mismatches.push(`isspace ${hex}`);
      if (pythonLower(ch) !== (tables.lower[c] ?? ch)) mismatches.push(`lower ${hex}`);
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const sigmaAfter = pythonLower(`A${ch}\u03a3`).endsWith('\u03c2');
      const sigmaBefore = pythonLower(`A\u03a3${ch}`)[1] === '\u03c2';
      const ourClass = sigmaAfter && sigmaBefore ? 'ignorable' : sigmaAfter ? 'cased' : 'none';
      if (ourClass !== (pyClass.get(c) ?? 'none')) mismatches.push(`case class ${hex}: ${ourClass} vs ${pyClass.get(c) ?? 'none'}`);
    }
    expect(mismatches).toEqual([]);
  });
});

// ---- Property test against python3 -------------------------------------------------------------

const INTERESTING_CODE_POINTS = [
  0x00, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1f, 0x20, 0x22, 0x2f, 0x5c, 0x7f, 0x85, 0xa0, 0xe9, 0x130, 0x295, 0x345, 0x3a3, 0x3c2, 0x1c89,
  0x1e9e, 0x2028, 0x2029, 0x212a, 0x3000, 0xa7cb, 0xd7ff, 0xe000, 0xfeff, 0xffff, 0x10000, 0x10d50, 0x1171e, 0x1f600, 0x10ffff,
];
const isSurrogate = (cp: number): boolean => cp >= 0xd800 && cp <= 0xdfff;
const codePoint = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 3, arbitrary: fc.constantFrom(...INTERESTING_CODE_POINTS) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0xffff }).filter((cp) => !isSurrogate(cp)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) },
);
const text = fc.array(codePoint, { maxLength: 10 }).map((cps) => String.fromCodePoint(...cps));

const SHORT_ESCAPES = new Map([
  [0x22, '\\"'],
  [0x5c, '\\\\'],
  [0x2f, '\\/'],
  [0x08, '\\b'],
  [0x0c, '\\f'],
  [0x0a, '\\n'],
  [0x0d, '\\r'],
  [0x09, '\\t'],
]);
type Style = 'raw' | 'short' | 'u' | 'U';
/** One code point written into a JSON string literal, raw or escaped in one of the ways JSON allows. */
function encodeCodePoint(cp: number, style: Style): string {
  const short = SHORT_ESCAPES.get(cp);
  if (style === 'raw' && cp >= 0x20 && cp !== 0x22 && cp !== 0x5c && !isSurrogate(cp)) return String.fromCodePoint(cp);
  if (short !== undefined && style !== 'u' && style !== 'U') return short;
  const units = cp > 0xffff ? [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)] : [cp];
  return units
    .map((u) => `\\u${u.toString(16).padStart(4, '0')}`)
    .map((e) => (style === 'U' ? e.toUpperCase().replace('\\U', '\\u') : e))
    .join('');
}
const stringLiteral = fc
  .array(
    fc.oneof(
      { weight: 150, arbitrary: fc.tuple(codePoint, fc.constantFrom<Style>('raw', 'raw', 'raw', 'short', 'u', 'U')) },
      // Lone surrogate escapes: Python's json.loads keeps them, its .encode("utf-8") then fails.
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(0xd800, 0xd83d, 0xdbff, 0xdc00, 0xde00, 0xdfff), fc.constant<Style>('u')) },
    ),
    { maxLength: 8 },
  )
  .map((pieces) => `"${pieces.map(([cp, style]) => encodeCodePoint(cp, style)).join('')}"`);

const digits = (min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(''));
const intLexeme = fc.oneof(
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.bigInt({ min: -(10n ** 300n), max: 10n ** 300n }).map(String),
  fc.constantFrom('0', '-0', '18446744073709551617', '9007199254740993', `1${'0'.repeat(100)}`),
);
const floatLexeme = fc.oneof(
  fc.double().map((d) => (Number.isFinite(d) || Number.isNaN(d) ? String(d) : d > 0 ? 'Infinity' : '-Infinity')),
  fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.oneof(
        fc.constant('0'),
        fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 20)).map(([d, rest]) => `${d}${rest}`),
      ),
      fc.option(
        digits(1, 20).map((d) => `.${d}`),
        { nil: '' },
      ),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 4)).map((parts) => parts.join('')),
        { nil: '' },
      ),
    )
    .map((parts) => parts.join('')),
  fc.constantFrom(
    '1.0',
    '-0.0',
    '1e16',
    '1E400',
    '-1e400',
    '1e-5',
    '0.1',
    '5e-324',
    '2.5e-324',
    '1e-400',
    '1.7976931348623159e308',
    '1e15',
    '123456789012345678901234567890.5',
  ),
);
const literal = fc.constantFrom('null', 'true', 'false', 'NaN', 'Infinity', '-Infinity');
const ws = fc.constantFrom('', '', '', '', ' ', '\n', '\t', '\r\n  ');
// A small pool makes duplicate keys and astral/BMP ordering cases frequent; "\\u0061" is "a" again.
const key = fc.oneof(
  fc.constantFrom('"a"', '"b"', '"\\u0061"', '"A"', '""', '"é"', '"e\\u0301"', '"\ue000"', '"\uffff"', '"😀"', '"\\ud83d\\ude00"', '"Σ"'),
  stringLiteral,
);

const { value: jsonValue } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ maxDepth: 4, depthIdentifier: 'json' }, stringLiteral, intLexeme, floatLexeme, literal, tie('array'), tie('object')),
  array: fc
    .tuple(ws, fc.array(fc.tuple(ws, tie('value'), ws), { maxLength: 4, depthIdentifier: 'json' }))
    .map(([inner, items]) => (items.length === 0 ? `[${inner}]` : `[${items.map((parts) => parts.join('')).join(',')}]`)),
  object: fc
    .tuple(ws, fc.array(fc.tuple(ws, key, ws, ws, tie('value'), ws), { maxLength: 4, depthIdentifier: 'json' }))
    .map(([inner, entries]) =>
      entries.length === 0 ? `{${inner}}` : `{${entries.map(([a, k, b, c, v, d]) => `${a}${k}${b}:${c}${v}${d}`).join(',')}}`,
    ),
}));

// About one text in four gets a random edit, to compare what both sides reject (and they may
// split a surrogate pair, leaving raw lone surrogates in the text).
const edit = fc.record({
  kind: fc.constantFrom('insert', 'delete'),
  at: fc.nat(),
  char: fc.constantFrom(
    ',',
    '0',
    '"',
    "'",
    ']',
    '}',
    '[',
    '{',
    ':',
    ' ',
    '\u000b',
    '\u00a0',
    '\\',
    '\u0001',
    'e',
    '.',
    '-',
    '+',
    'x',
    '\ufeff',
    '\ud800',
    '\udc00',
  ),
});
const payloadJson = fc
  .tuple(ws, jsonValue, ws, fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: edit }))
  .map(([before, value, after, change]) => {
    const json = `${before}${value}${after}`;
    if (change === null) return json;
    const at = change.at % (json.length + 1);
    return change.kind === 'insert' ? json.slice(0, at) + change.char + json.slice(at) : json.slice(0, at) + json.slice(at + 1);
  });

const whitespaceAny = fc.constantFrom(
  ' ',
  '\t',
  '\n',
  '\u000b',
  '\u000c',
  '\r',
  '\u001c',
  '\u001f',
  '\u0085',
  '\u00a0',
  '\u1680',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\u200b',
  '\u180e',
);
const padded = (core: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc
    .tuple(fc.array(whitespaceAny, { maxLength: 3 }), core, fc.array(whitespaceAny, { maxLength: 3 }))
    .map(([a, s, b]) => a.join('') + s + b.join(''));
const field = fc.oneof(
  { weight: 24, arbitrary: text },
  {
    weight: 12,
    arbitrary: fc.constantFrom(
      'Demo/Payment-Service',
      'ΟΔΟΣ',
      'ΑΣ.Σ',
      'Σ',
      'AΣ\u0345',
      'İstanbul',
      'ǅungla',
      'ẞ',
      'K',
      'Ω',
      '\u1c89Σ',
      'ΑΣ\ua7cb',
      'A\u0295Σ',
      'A\u{1171e}Σ',
      'feature/Ünïcode',
      'Σ\u{10d50}',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom('a\ud800b', '\udc00') },
);

describe('makeIdempotencyKeyFromJsonText vs python3 (property)', () => {
  it('gives the same digest, or fails with the same Python exception', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ repo: padded(field), branch: padded(field), action: field, payloadJson, workflowVersion: field }),
        async (input) => {
          expect(ours(input)).toEqual(await python(input));
        },
      ),
      { seed: 20260825, numRuns: 400 },
    );
  });
});
