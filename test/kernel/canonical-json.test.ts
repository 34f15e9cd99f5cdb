import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CanonicalJsonError, canonicalJsonUtf8, encodeUtf8Strict, pythonFloatRepr, pythonJsonDumps } from '../../src/kernel/canonical-json.js';
import { type PyJson, parsePythonJson } from '../../src/kernel/python-json.js';
import { PythonOracle } from '../fixtures/python-oracle.js';

const oracle = new PythonOracle();
afterAll(() => oracle.close());

function bitsHex(x: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return Array.from(new Uint8Array(view.buffer), (b) => b.toString(16).padStart(2, '0')).join('');
}

describe('pythonFloatRepr', () => {
  it.each<[number, string]>([
    [1.0, '1.0'],
    [0.1, '0.1'],
    [-0, '-0.0'],
    [0, '0.0'],
    [1e16, '1e+16'],
    [1e15, '1000000000000000.0'],
    [123456789012345680, '1.2345678901234568e+17'],
    // biome-ignore lint/correctness/noPrecisionLoss: the literal rounds to 2**53 at parse time, as Python's float() does; that is the case.
    [9007199254740993, '9007199254740992.0'],
    [1e-4, '0.0001'],
    [1e-5, '1e-05'],
    [1.5e-5, '1.5e-05'],
    [5e-324, '5e-324'],
    [1.7976931348623157e308, '1.7976931348623157e+308'],
    [1e22, '1e+22'],
    [1e21, '1e+21'],
    [-2.5, '-2.5'],
    [100, '100.0'],
    [0.000123, '0.000123'],
    [Infinity, 'Infinity'],
    [-Infinity, '-Infinity'],
    [NaN, 'NaN'],
  ])('writes %s as %s', (x, expected) => {
    expect(pythonFloatRepr(x)).toBe(expected);
  });

  it('agrees with python3 repr on many doubles (one batch)', async () => {
    const edges = [
      0,
      -0,
      1,
      -1,
      0.1,
      0.5,
      1e16,
      1e15,
      9999999999999998,
      1e-4,
      9.999999999999999e-5,
      1e-5,
      5e-324,
      2.2250738585072014e-308,
      Number.MAX_VALUE,
      Number.EPSILON,
      2 ** 53,
      2 ** 63,
      1 / 3,
    ];
    // Integers, then doubles of every magnitude, then doubles around the 1e-4 and 1e16 format switch.
    const generated = fc.sample(
      fc.oneof(
        fc.integer().map((n) => n * 1.0),
        fc.double({ noNaN: true }),
        fc.double({ min: 1e-6, max: 1e-3, noNaN: true }),
        fc.double({ min: 1e14, max: 1e18, noNaN: true }),
      ),
      { seed: 20260825, numRuns: 20_000 },
    );
    const values = [...edges, ...edges.map((x) => -x), ...generated];
    const reprs = await oracle.call<string[]>({ op: 'float_repr', hex: values.map(bitsHex) });
    const mismatches = values.filter((x, i) => pythonFloatRepr(x) !== reprs[i]).map((x) => [x, pythonFloatRepr(x)]);
    expect(mismatches).toEqual([]);
  });
});

describe('pythonJsonDumps', () => {
  it.each<[string, PyJson, string]>([
    ['null and bools', [null, true, false], '[null,true,false]'],
    ['int vs float', [1n, 1.0, -0, 0n], '[1,1.0,-0.0,0]'],
    ['2**64+1', 18446744073709551617n, '18446744073709551617'],
    ['a 100-digit int', 10n ** 99n + 7n, `1${'0'.repeat(98)}7`],
    ['a negative big int', -(2n ** 100n), '-1267650600228229401496703205376'],
    ['empty containers', [[], new Map()], '[[],{}]'],
    ['short escapes', '"\\\n\r\t\b\f/', String.raw`"\"\\\n\r\t\b\f/"`],
    ['other controls as lowercase \\u00XX', '\u0000\u0001\u001b\u001f', String.raw`"\u0000\u0001\u001b\u001f"`],
    ['DEL, non-ASCII and astral raw', '\u007fé€\u2028\u{1f600}', '"\u007fé€\u2028\u{1f600}"'],
    [
      'keys sorted at every depth',
      new Map<string, PyJson>([
        [
          'b',
          new Map<string, PyJson>([
            ['z', 1n],
            [
              'a',
              [
                new Map<string, PyJson>([
                  ['y', 1n],
                  ['x', 2n],
                ]),
              ],
            ],
          ]),
        ],
        ['a', null],
      ]),
      '{"a":null,"b":{"a":[{"x":2,"y":1}],"z":1}}',
    ],
    [
      'keys by code point, not UTF-16 unit: U+E000 < U+FFFF < U+1F600',
      new Map<string, PyJson>([
        ['\u{1f600}', 1n],
        ['\uffff', 2n],
        ['\ue000', 3n],
        ['z', 4n],
        ['', 5n],
        ['zz', 6n],
      ]),
      '{"":5,"z":4,"zz":6,"\ue000":3,"\uffff":2,"\u{1f600}":1}',
    ],
  ])('writes %s', (_name, value, expected) => {
    expect(pythonJsonDumps(value)).toBe(expected);
  });

  it('matches python3 for the same texts', async () => {
    const texts = [
      '{"\ud83d\ude00":1,"\uffff":2,"\ue000":3,"a":{"\u00e9":[1.0,1e16,1e-5,0.1,1e400,-0.0,NaN,-Infinity]}}',
      '["\\u0000\\u001f\\u007f\\b\\f\\n\\r\\t\\"\\\\\\/", 18446744073709551617]',
      `[${'7'.repeat(100)}, -${'1'.repeat(4300)}]`,
    ];
    for (const json of texts) {
      expect(pythonJsonDumps(parsePythonJson(json))).toBe(await oracle.call<string>({ op: 'dumps', json }));
    }
  });

  it('refuses ints over 4300 digits, like Python 3.11 str(int)', () => {
    expect(pythonJsonDumps(-(10n ** 4300n - 1n))).toHaveLength(4301);
    expect(() => pythonJsonDumps(10n ** 4300n)).toThrow(expect.objectContaining({ code: 'INT_TOO_LONG' }));
  });

  it('refuses what Python cannot serialize', () => {
    expect(() => pythonJsonDumps({ a: 1 } as unknown as PyJson)).toThrow(expect.objectContaining({ code: 'NOT_PY_JSON' }));
    expect(() => pythonJsonDumps([undefined] as unknown as PyJson)).toThrow(expect.objectContaining({ code: 'NOT_PY_JSON' }));
    const cyclic: PyJson[] = [];
    cyclic.push(cyclic);
    expect(() => pythonJsonDumps(cyclic)).toThrow(expect.objectContaining({ code: 'CIRCULAR_REFERENCE' }));
  });
});

describe('canonicalJsonUtf8', () => {
  it('encodes as UTF-8', () => {
    expect(Buffer.from(canonicalJsonUtf8(new Map([['k', 'é\u{1f600}']]))).toString('hex')).toBe(
      Buffer.from('{"k":"é\u{1f600}"}', 'utf8').toString('hex'),
    );
  });

  it('throws like Python on lone surrogates, which Node would silently turn into U+FFFD', () => {
    // json.dumps keeps the lone surrogate; only .encode("utf-8") fails.
    expect(pythonJsonDumps('a\ud800')).toBe('"a\ud800"');
    let error: unknown;
    try {
      canonicalJsonUtf8(['\u{1f600}', 'a\ud800']);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect(error).toMatchObject({
      code: 'LONE_SURROGATE',
      offset: 8,
      message: "'utf-8' codec can't encode character '\\ud800' in position 7: surrogates not allowed",
    });
    expect(() => encodeUtf8Strict('\udc00')).toThrow(expect.objectContaining({ code: 'LONE_SURROGATE' }));
    expect(() => encodeUtf8Strict('\ud83d\ude00')).not.toThrow();
  });
});
