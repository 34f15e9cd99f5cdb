import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { InputError } from '../../src/kernel/errors.js';
import { MAX_FILE_BYTES } from '../../src/scenarios/file-limits.js';
import { loadScenarioFile, ScenarioFileError } from '../../src/scenarios/load.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * Hostile and broken scenarios files: the shipped file, mutated by fast-check
 * (values of the wrong type, missing and extra fields, huge and negative
 * numbers, unknown names, deep nesting; and in the text: cuts, stray
 * characters, lost indents, bytes that are not UTF-8), plus the classic
 * attacks (a 10 MB file, aliases that expand exponentially, nesting thousands
 * deep). Each must either load, or be refused as bad input naming the file and,
 * for a problem with a place, its line, with a message a person can act on,
 * in well under a second, and never with an exception of another kind (a
 * crash). A sample of the refusals goes through the real CLI: exit 2, one
 * message, no stack trace.
 */

const SHIPPED = readFileSync('scenarios.yaml', 'utf8');
const SHIPPED_DATA: unknown = parse(SHIPPED);
const RUNS = 1000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path into a value, with the value there. */
function pathsOf(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  const here = [path];
  if (Array.isArray(value)) return [...here, ...value.flatMap((item, i) => pathsOf(item, [...path, i]))];
  if (value !== null && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...path, k]))];
  return here;
}
const PATHS = pathsOf(SHIPPED_DATA).filter((p) => p.length > 0);

/** Words a scenarios file uses, misspelt or out of place: unknown names that look almost right. */
const NEAR_NAMES = [
  'crash ',
  'Crash',
  'after-claim',
  'AFTER_CLAIM',
  'nosuch',
  'bullmq',
  'process:',
  'process: ',
  'reference2',
  '',
  ' ',
  '../x',
  'a'.repeat(300),
];

const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer(),
  fc.constantFrom(-1, 0, -0.5, 1.5, 1e21, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 53),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(...NEAR_NAMES),
  fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer()), { maxKeys: 3 }),
  fc.integer({ min: 10, max: 300 }).map((depth) => {
    let nested: Json = 'deep';
    for (let i = 0; i < depth; i++) nested = [nested];
    return nested;
  }),
);

type Mutation =
  | { kind: 'replace'; path: number; value: Json }
  | { kind: 'delete'; path: number }
  | { kind: 'extra'; path: number; key: string; value: Json }
  | { kind: 'text'; at: number; cut: number; insert: string }
  | { kind: 'bytes'; at: number; bytes: number[] };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), path: fc.nat(PATHS.length - 1), value: hostileValue }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.nat(PATHS.length - 1) }),
  fc.record({
    kind: fc.constant('extra' as const),
    path: fc.nat(PATHS.length - 1),
    key: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...NEAR_NAMES)),
    value: hostileValue,
  }),
  fc.record({
    kind: fc.constant('text' as const),
    at: fc.nat(SHIPPED.length),
    cut: fc.nat(40),
    insert: fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom(':', ': ', '[', '{', '}', ']', '&a ', '*a', '\t', '\n  ', "'", '"', '- ', '#', '!!binary ', '\u0000', '\uFEFF'),
    ),
  }),
  fc.record({
    kind: fc.constant('bytes' as const),
    at: fc.nat(SHIPPED.length),
    bytes: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 3 }),
  }),
);

/** The shipped file with one to three mutations, as the bytes of a file. */
function mutatedFile(mutations: readonly Mutation[]): Buffer {
  let data = structuredClone(SHIPPED_DATA) as Json;
  let text: string | undefined;
  let bytes: Buffer | undefined;
  for (const m of mutations) {
    if (m.kind === 'text' || m.kind === 'bytes') {
      const base = bytes ?? Buffer.from(text ?? SHIPPED);
      const at = Math.min(m.at, base.length);
      bytes =
        m.kind === 'text'
          ? Buffer.concat([base.subarray(0, at), Buffer.from(m.insert), base.subarray(Math.min(base.length, at + m.cut))])
          : Buffer.concat([base.subarray(0, at), Buffer.from(m.bytes), base.subarray(at)]);
      continue;
    }
    if (bytes) continue; // once the text is broken, data mutations no longer apply
    data = applyToData(data, m);
    text = stringify(data);
  }
  return bytes ?? Buffer.from(text ?? stringify(data));
}

function applyToData(data: Json, m: Exclude<Mutation, { kind: 'text' | 'bytes' }>): Json {
  const path = PATHS[m.path]!;
  let parent: Json = data;
  for (const segment of path.slice(0, -1)) {
    const next: Json | undefined = (parent as Record<string | number, Json>)?.[segment];
    if (next === undefined || next === null || typeof next !== 'object') return data; // an earlier mutation moved it
    parent = next;
  }
  const last = path.at(-1)!;
  const container = parent as Record<string | number, Json>;
  if (container === null || typeof container !== 'object') return data;
  if (m.kind === 'replace') container[last] = m.value;
  else if (m.kind === 'delete') {
    if (Array.isArray(container) && typeof last === 'number') container.splice(last, 1);
    else delete container[last];
  } else {
    const target = container[last];
    if (target !== null && typeof target === 'object' && !Array.isArray(target)) (target as Record<string, Json>)[m.key] = m.value;
    else container[last] = m.value;
  }
  return data;
}

/** What reading a file came to: loaded (and resolved), or refused with the error. */
function readFile(file: string): { loaded: true } | { loaded: false; error: unknown } {
  try {
    resolveScenarios(loadScenarioFile(file), { seed: 1, only: [], timeScale: 1 });
    return { loaded: true };
  } catch (error) {
    return { loaded: false, error };
  }
}

/** The ways a refusal can fail a person: not bad input, no file named, a place without its line, words that say nothing. */
function refusalProblems(file: string, error: unknown): string[] {
  if (!(error instanceof InputError))
    return [`not a refusal but a crash: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`];
  const problems: string[] = [];
  if (error instanceof ScenarioFileError) {
    if (error.source !== file) problems.push(`names ${error.source}, not the file`);
    for (const issue of error.issues) {
      if (issue.path !== '' && issue.line === null) problems.push(`${issue.path}: no line`);
      if (issue.message.trim() === '') problems.push(`${issue.path}: empty message`);
    }
  } else if (!error.message.includes('scenario')) problems.push(`names neither file nor scenario: ${error.message}`);
  if (/\n\s+at |\[object Object\]|undefined/.test(error.message)) problems.push(`unreadable message: ${error.message.slice(0, 300)}`);
  return problems;
}

describe('a hostile or broken scenarios file', () => {
  const dir = tempRunDir('fuzz-scenarios');
  /**
   * What `work` cost in CPU time (this process's user and system time), not in wall time: on a loaded
   * machine the wall clock measures the other processes too, and a bound on it is a flaky test.
   */
  function cpuTimed<T>(work: () => T): { result: T; ms: number } {
    const before = process.cpuUsage();
    const result = work();
    const spent = process.cpuUsage(before);
    return { result, ms: (spent.user + spent.system) / 1000 };
  }
  afterAll(() => dir.remove());
  const refusals: Array<{ file: string; message: string }> = [];

  it(`loads, or is refused with the file, the line and what is allowed, in well under a second: ${RUNS} mutations of the shipped file`, {
    timeout: 300_000,
  }, () => {
    let loaded = 0;
    let slowest = 0;
    let n = 0;
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        const file = join(dir.dir, `case-${n++}.yaml`);
        writeFileSync(file, mutatedFile(mutations));
        const { result: outcome, ms } = cpuTimed(() => readFile(file));
        slowest = Math.max(slowest, ms);
        expect(ms, 'read or refused within a second of CPU').toBeLessThan(1000);
        if (outcome.loaded) loaded++;
        else {
          expect(refusalProblems(file, outcome.error)).toEqual([]);
          if (refusals.length < 400) refusals.push({ file, message: (outcome.error as Error).message });
        }
      }),
      { numRuns: RUNS, seed: 2026 },
    );
    console.log(`fuzz: ${RUNS} mutated files, ${loaded} loaded, ${RUNS - loaded} refused as bad input, slowest ${slowest.toFixed(0)} ms of CPU`);
    expect(loaded, 'some mutations still make a valid file').toBeGreaterThan(0);
    expect(RUNS - loaded, 'most mutations are refused').toBeGreaterThan(RUNS / 2);
  });

  const attacks: Array<{ name: string; bytes: () => Buffer; says: RegExp }> = [
    {
      name: 'a 10 MB file',
      bytes: () => Buffer.from(`${SHIPPED}\n# ${'x'.repeat(10 * 1024 * 1024)}\n`),
      says: /is 10\.0 MiB: a scenarios file is at most 1\.0 MiB/,
    },
    {
      name: 'aliases that expand exponentially (a billion laughs)',
      bytes: () => {
        let text = 'version: 1\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
        let previous = 'a';
        for (const name of 'bcdefghij') {
          text += `${name}: &${name} [${Array.from({ length: 9 }, () => `*${previous}`).join(',')}]\n`;
          previous = name;
        }
        return Buffer.from(`${text}scenarios: *j\n`);
      },
      says: /alias/i,
    },
    {
      name: 'nesting 20,000 deep',
      bytes: () => Buffer.from(`version: 1\nscenarios: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`),
      says: /nests too deep|nests more than 64/,
    },
    {
      name: 'nesting 100 deep',
      bytes: () => Buffer.from(`version: 1\nscenarios: ${'['.repeat(100)}${']'.repeat(100)}\n`),
      says: /:2:\d+: nests more than 64 levels deep/,
    },
    {
      name: 'bytes that are not UTF-8',
      bytes: () => Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from(`\n${SHIPPED}`)]),
      says: /:1:6: is not UTF-8 here/,
    },
    { name: 'an empty file', bytes: () => Buffer.alloc(0), says: /is empty: a scenarios file holds `version: 1`/ },
    {
      // Once ran the harness out of memory: a cross-check counted the group's jobs out before the schema refused it.
      name: 'a job group of 300 million jobs beside a fault that names a job',
      bytes: () =>
        Buffer.from(
          'version: 1\nscenarios:\n  - name: a\n    description: d\n    jobs: [{ plan: write-file, count: 296337248, expect: done }]\n' +
            '    faults: [{ at: after_claim, action: crash, where: { job: 2 } }]\n',
        ),
      says: /:5:\d+ scenarios\[0\]\.jobs\[0\]\.count: must be at most 1000, got 296337248/,
    },
    { name: 'binary garbage', bytes: () => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)), says: /not UTF-8|YAML|expected/ },
  ];

  it.each(attacks.map((attack, i) => ({ ...attack, file: join(dir.dir, `attack-${i}.yaml`) })))(
    'refuses $name at once, naming the file',
    ({ bytes, says, file }) => {
      writeFileSync(file, bytes());
      const { result: outcome, ms } = cpuTimed(() => readFile(file));
      expect(ms, 'read or refused within a second of CPU').toBeLessThan(1000);
      expect(outcome.loaded).toBe(false);
      const error = (outcome as { error: unknown }).error;
      expect(refusalProblems(file, error)).toEqual([]);
      expect((error as Error).message).toMatch(says);
      refusals.push({ file, message: (error as Error).message });
    },
  );

  it('through the CLI, a sample of the refusals exits 2 with one message naming the file, and no stack trace', { timeout: 120_000 }, async () => {
    expect(MAX_FILE_BYTES).toBe(1024 * 1024);
    // Every 20th refusal of the fuzz, and the attacks.
    const sample = refusals.filter((_, i) => i % 20 === 0 || i >= refusals.length - attacks.length);
    expect(sample.length).toBeGreaterThan(10);
    for (const { file } of sample) {
      const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--out', join(dir.dir, 'never')], { reject: false });
      expect(result.exitCode, `${file}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(file);
      expect(result.stderr, 'no stack trace').not.toMatch(/\n\s+at |node:internal/);
      expect(result.stdout).toBe('');
    }
  });
});
