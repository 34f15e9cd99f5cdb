import { afterAll, describe, expect, it } from 'vitest';
import { pythonJsonDumps } from '../../src/kernel/canonical-json.js';
import { fromJsValue, MAX_DEPTH, type PyJson, PythonJsonError, parsePythonJson } from '../../src/kernel/python-json.js';
import { PythonOracle } from '../fixtures/python-oracle.js';

const oracle = new PythonOracle();
afterAll(() => oracle.close());

function parseError(text: string): PythonJsonError {
  try {
    parsePythonJson(text);
  } catch (error) {
    if (error instanceof PythonJsonError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parsePythonJson', () => {
  it.each<[string, PyJson]>([
    ['1', 1n],
    ['-0', 0n],
    ['1.0', 1.0],
    ['-0.0', -0],
    ['1e400', Infinity],
    ['-1e400', -Infinity],
    ['1e-400', 0],
    ['1E5', 100000],
    ['18446744073709551617', 18446744073709551617n],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['null', null],
    ['true', true],
    ['false', false],
    [' \t\n\r[ ] ', []],
    ['"\\ud800"', '\ud800'],
    ['"\\ud83d\\ude00"', '\u{1f600}'],
    ['"\\uD83D\\uDE00"', '\u{1f600}'],
    ['"\\ud800\\ud83d\\ude00"', '\ud800\u{1f600}'],
    ['"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9"', '"\\/\b\f\n\r\té'],
    ['"\u007f\u2028\ufeff"', '\u007f\u2028\ufeff'],
    ['[1, 2.5, "x", {"a": []}]', [1n, 2.5, 'x', new Map([['a', []]])]],
  ])('reads %j', (text, expected) => {
    expect(parsePythonJson(text)).toEqual(expected);
  });

  it('keeps int and float apart', () => {
    expect(parsePythonJson('1')).toBe(1n);
    expect(parsePythonJson('1.0')).toBe(1);
    expect(Object.is(parsePythonJson('-0.0'), -0)).toBe(true);
    expect(parsePythonJson('-0')).toBe(0n);
  });

  it('resolves duplicate keys like a dict: last value, first position', () => {
    const object = parsePythonJson('{"a": 1, "b": 2, "a": 3}') as Map<string, PyJson>;
    expect([...object.entries()]).toEqual([
      ['a', 3n],
      ['b', 2n],
    ]);
  });

  it('treats "__proto__" as an ordinary key', () => {
    const object = parsePythonJson('{"__proto__": 1}') as Map<string, PyJson>;
    expect(object.get('__proto__')).toBe(1n);
  });

  it('accepts a 4300-digit int and refuses 4301 digits, like Python 3.11', () => {
    expect(parsePythonJson(`-${'9'.repeat(4300)}`)).toBe(-(10n ** 4300n - 1n));
    expect(parseError('9'.repeat(4301)).code).toBe('INT_TOO_LONG');
  });

  it(`accepts nesting up to ${MAX_DEPTH} and refuses deeper`, () => {
    expect(() => parsePythonJson('['.repeat(MAX_DEPTH) + ']'.repeat(MAX_DEPTH))).not.toThrow();
    const error = parseError('['.repeat(MAX_DEPTH + 1) + ']'.repeat(MAX_DEPTH + 1));
    expect(error.code).toBe('TOO_DEEP');
    expect(error.offset).toBe(MAX_DEPTH);
  });

  it.each<[string, string, number]>([
    ['', 'EXPECTING_VALUE', 0],
    ['   ', 'EXPECTING_VALUE', 3],
    ['[1,]', 'EXPECTING_VALUE', 3],
    ['[,]', 'EXPECTING_VALUE', 1],
    ['{"a":1,}', 'EXPECTING_PROPERTY_NAME', 7],
    ["{'a':1}", 'EXPECTING_PROPERTY_NAME', 1],
    ['{a:1}', 'EXPECTING_PROPERTY_NAME', 1],
    ['{"a" 1}', 'EXPECTING_COLON', 5],
    ['[1 2]', 'EXPECTING_COMMA', 3],
    ['{"a":1 "b":2}', 'EXPECTING_COMMA', 7],
    ['01', 'EXTRA_DATA', 1],
    ['[01]', 'EXPECTING_COMMA', 2],
    ['1.', 'EXTRA_DATA', 1],
    ['1.e5', 'EXTRA_DATA', 1],
    ['.5', 'EXPECTING_VALUE', 0],
    ['+1', 'EXPECTING_VALUE', 0],
    ['-', 'EXPECTING_VALUE', 0],
    ['1e', 'EXTRA_DATA', 1],
    ['1e+', 'EXTRA_DATA', 1],
    ['nan', 'EXPECTING_VALUE', 0],
    ['-NaN', 'EXPECTING_VALUE', 0],
    ['infinity', 'EXPECTING_VALUE', 0],
    ['nul', 'EXPECTING_VALUE', 0],
    ['1 1', 'EXTRA_DATA', 2],
    ['\ufeff1', 'UNEXPECTED_BOM', 0],
    ['\u000b1', 'EXPECTING_VALUE', 0],
    ['\u00a01', 'EXPECTING_VALUE', 0],
    ["'a'", 'EXPECTING_VALUE', 0],
    ['"abc', 'UNTERMINATED_STRING', 0],
    ['"abc\\', 'UNTERMINATED_STRING', 0],
    ['"a\nb"', 'INVALID_CONTROL_CHARACTER', 2],
    ['"\u0000"', 'INVALID_CONTROL_CHARACTER', 1],
    ['"\u001f"', 'INVALID_CONTROL_CHARACTER', 1],
    ['"\\x41"', 'INVALID_ESCAPE', 1],
    ['"\\\'"', 'INVALID_ESCAPE', 1],
    ['"\\u12g4"', 'INVALID_UNICODE_ESCAPE', 2],
    ['"\\u12"', 'INVALID_UNICODE_ESCAPE', 2],
    ['"\\ud800\\u12"', 'INVALID_UNICODE_ESCAPE', 8],
    ['"\\U0041"', 'INVALID_ESCAPE', 1],
  ])('rejects %j with %s at offset %i, as python3 does', async (text, code, offset) => {
    const error = parseError(text);
    expect(error.code).toBe(code);
    expect(error.offset).toBe(offset);
    expect(error.message).toContain(`offset ${offset}`);
    // These texts are all BMP, so Python's code point position equals our UTF-16 offset.
    const reply = await oracle.request({ op: 'dumps', json: text });
    expect(reply).toMatchObject({ error: 'JSONDecodeError', message: expect.stringContaining(`(char ${offset})`) });
  });

  it('says where, with line and column', () => {
    expect(parseError('{\n  "a": tru\n}').message).toBe('Expecting value at offset 9 (line 2, column 8)');
  });

  it('refuses a lone high surrogate followed by a lone low one, which a JS string would merge', () => {
    // Escaped high + raw low: Python keeps two code points (then cannot encode them).
    expect(parseError('"\\ud800\udc00"').code).toBe('UNREPRESENTABLE_SURROGATES');
    // Raw high + escaped low.
    expect(parseError('"\ud800\\udc00"').code).toBe('UNREPRESENTABLE_SURROGATES');
    // A syntax error later in the text still wins, as json.loads raises before any encoding.
    expect(parseError('["\\ud800\udc00",]').code).toBe('EXPECTING_VALUE');
    // Raw lone surrogates that stay lone are kept.
    expect(parsePythonJson('"\udc00\ud800"')).toBe('\udc00\ud800');
  });

  it('agrees with python3 on which texts json.loads accepts and what they become', async () => {
    const texts = [
      '{"b":1,"a":[1.0,2,-0.0,1e400,NaN],"c":{"z":null,"y":true}}',
      '{"a":1,"a":2}',
      '[1E400, -1e400, 1e-400, -1e-400, 5e-324, 2.5e-324, 1.7976931348623157e308]',
      '[123456789012345678901234567890, -0, 0.1, 1e16, 1e-5, 1.5e-05, 100.0]',
      '"\\u00e9\\ud83d\\ude00\\u2028\u0085"',
      '[1,]',
      '{"a":1,}',
      '01',
      '"\u0001"',
      "'x'",
      '\u000b[]',
      '[] \r\n\t',
      '"\\ud800"',
      '9'.repeat(4301),
    ];
    for (const text of texts) {
      const reply = await oracle.request<string>({ op: 'dumps', json: text });
      let ours: string;
      try {
        ours = pythonJsonDumps(parsePythonJson(text));
      } catch (error) {
        expect(error, text).toBeInstanceOf(PythonJsonError);
        expect('error' in reply, text).toBe(true);
        continue;
      }
      if ('error' in reply) {
        // json.loads accepted it; only encoding may fail, for lone surrogates.
        expect(reply.error, text).toBe('UnicodeEncodeError');
        expect(ours).toMatch(/\p{Cs}/u);
      } else {
        expect(ours, text).toBe(reply.ok);
      }
    }
  });
});

describe('fromJsValue', () => {
  it('maps safe integers to int and other numbers to float', () => {
    expect(fromJsValue(1)).toBe(1n);
    expect(fromJsValue(-0)).toBe(0n);
    expect(fromJsValue(1.5)).toBe(1.5);
    expect(fromJsValue(2 ** 53)).toBe(2 ** 53);
    expect(fromJsValue(NaN)).toBeNaN();
    expect(fromJsValue(12n)).toBe(12n);
  });

  it('turns objects and Maps into dicts and keeps arrays', () => {
    const value = fromJsValue({ b: [1, 'x', null, true], a: new Map([['k', 2.5]]) });
    expect(value).toEqual(
      new Map<string, PyJson>([
        ['b', [1n, 'x', null, true]],
        ['a', new Map([['k', 2.5]])],
      ]),
    );
  });

  it('gives the same canonical text as parsing JSON.stringify output, when there are no floats', () => {
    const object = { z: 'é', a: [1, 2, { c: null, b: false }], m: -5, big: 12345678901234 };
    expect(pythonJsonDumps(fromJsValue(object))).toBe(pythonJsonDumps(parsePythonJson(JSON.stringify(object))));
  });

  it.each<[string, unknown, string]>([
    ['undefined', { a: undefined }, 'UNSUPPORTED_VALUE'],
    ['a function', [() => 1], 'UNSUPPORTED_VALUE'],
    ['a Date', { when: new Date(0) }, 'UNSUPPORTED_VALUE'],
    ['a symbol', Symbol('s'), 'UNSUPPORTED_VALUE'],
    // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about.
    ['a sparse array', [1, , 3], 'UNSUPPORTED_VALUE'],
    ['a non-string Map key', new Map([[1, 2]]), 'UNSUPPORTED_VALUE'],
  ])('rejects %s', (_name, value, code) => {
    expect(() => fromJsValue(value)).toThrow(expect.objectContaining({ code }));
  });

  it('rejects cycles and says where', () => {
    const cyclic: Record<string, unknown> = { a: [] };
    (cyclic.a as unknown[]).push(cyclic);
    expect(() => fromJsValue(cyclic)).toThrow(expect.objectContaining({ code: 'CIRCULAR_REFERENCE', path: '$["a"][0]' }));
  });

  it('allows shared (non-cyclic) references', () => {
    const shared = { x: 1 };
    expect(pythonJsonDumps(fromJsValue({ a: shared, b: shared }))).toBe('{"a":{"x":1},"b":{"x":1}}');
  });
});
