import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkStructure, layerTable, MAX_FUNCTION_LINES, MAX_LINE, NEVER_IMPORTS, ONLY_IMPORTED_BY } from '../../scripts/check-structure.mjs';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The house rules `npm run lint` checks beyond the formatter and the linter:
 * the layers, cycles between folders, function and line lengths. Each rule is
 * seen failing on a small tree made for it, and the repository itself passes.
 */

type Structure = { breaches: string[]; functions: Array<{ file: string; name: string; lines: number }> };
const check = checkStructure as (
  root: string,
  layers?: Record<string, string[]>,
  onlyImportedBy?: Record<string, string[]>,
  neverImports?: Record<string, string[]>,
) => Structure;
const table = layerTable as () => string;

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0)) step();
});

/** A tree with the given files under its src/. */
function tree(files: Record<string, string>): string {
  const run = tempRunDir('structure');
  cleanup.push(run.remove);
  for (const [path, text] of Object.entries(files)) {
    const file = join(run.dir, 'src', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return run.dir;
}

const LAYERS = { kernel: [], world: ['kernel'], cli: ['kernel', 'world'] };

describe('the structure check (npm run lint)', () => {
  it('passes a tree whose imports go down the layers', () => {
    const root = tree({
      'kernel/clock.ts': 'export const now = () => 1;\n',
      'world/ledger.ts': "import { now } from '../kernel/clock.js';\nexport const at = now;\n",
      'cli/main.ts': "import { at } from '../world/ledger.js';\nexport const main = at;\n",
    });
    expect(check(root, LAYERS).breaches).toEqual([]);
  });

  it('fails a deliberate upward import, naming the file, the folder and what the layer may import', () => {
    const root = tree({
      'kernel/clock.ts': "import { main } from '../cli/main.js';\nexport const now = main;\n",
      'cli/main.ts': 'export const main = 1;\n',
    });
    expect(check(root, LAYERS).breaches).toContainEqual(
      expect.stringMatching(/^src\/kernel\/clock\.ts imports src\/cli\/ \(src\/cli\/main\.js\): kernel may import only nothing outside itself$/),
    );
  });

  it('sees type-only and dynamic imports and re-exports too', () => {
    const root = tree({
      'kernel/a.ts': "import type { T } from '../world/t.js';\nexport type U = T;\n",
      'kernel/b.ts': "export { x } from '../world/t.js';\n",
      'kernel/c.ts': "export const load = () => import('../world/t.js');\n",
      'world/t.ts': 'export type T = number;\nexport const x = 1;\n',
    });
    expect(check(root, LAYERS).breaches.filter((b) => b.includes('kernel may import only'))).toHaveLength(3);
  });

  it('fails folders that import each other, even where the layers would allow each arrow', () => {
    const root = tree({
      'world/a.ts': "import { b } from '../cli/b.js';\nexport const a = b;\n",
      'cli/b.ts': "import { a } from '../world/a.js';\nexport const b = 1; export const c = a;\n",
    });
    expect(check(root, { kernel: [], world: ['cli'], cli: ['world'] }).breaches).toContainEqual('folders import each other in a cycle: cli, world');
  });

  it('fails a folder that is in no layer', () => {
    const root = tree({ 'kernel/a.ts': "import { b } from '../stray/b.js';\nexport const a = b;\n", 'stray/b.ts': 'export const b = 1;\n' });
    expect(check(root, LAYERS).breaches).toContainEqual(expect.stringMatching(/^src\/kernel\/a\.ts imports src\/stray\/ .*kernel may import only/));
    const up = tree({ 'stray/b.ts': "import { a } from '../kernel/a.js';\nexport const b = a;\n", 'kernel/a.ts': 'export const a = 1;\n' });
    expect(check(up, LAYERS).breaches).toContainEqual(expect.stringMatching(/src\/stray\/ is in no layer/));
  });

  it(`fails a function over ${MAX_FUNCTION_LINES} lines and a line over ${MAX_LINE} characters`, () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const root = tree({
      'kernel/long.ts': `export function long(): number {\n${body}\n  return 0;\n}\nexport const short = () => 1;\n`,
      'kernel/wide.ts': `export const wide = '${'x'.repeat(MAX_LINE)}';\n`,
    });
    const { breaches, functions } = check(root, LAYERS);
    expect(breaches).toContainEqual(`src/kernel/long.ts:1: function long is ${MAX_FUNCTION_LINES + 3} lines (at most ${MAX_FUNCTION_LINES})`);
    expect(breaches).toContainEqual(expect.stringMatching(/^src\/kernel\/wide\.ts:1: line of \d+ characters/));
    expect(functions[0]).toMatchObject({ name: 'long', lines: MAX_FUNCTION_LINES + 3 });
  });

  it('fails an import of a folder behind a door by a folder its layer would otherwise allow', () => {
    const layers = { kernel: [], reference: ['kernel'], variants: ['kernel', 'reference'], worker: ['kernel', 'reference'] };
    const root = tree({
      'reference/store.ts': 'export const store = 1;\n',
      'variants/v.ts': "import { store } from '../reference/store.js';\nexport const v = store;\n",
      'worker/w.ts': "import { store } from '../reference/store.js';\nexport const w = store;\n",
    });
    const { breaches } = check(root, layers, { reference: ['variants'] }, {});
    expect(breaches).toEqual(['src/worker/w.ts imports src/reference/ (src/reference/store.js): reference is imported only by variants']);
  });

  it('fails an import a folder must never make, even when its layer would allow it', () => {
    const layers = { kernel: [], drill: ['kernel'], judge: ['kernel', 'drill'] };
    const root = tree({
      'drill/run.ts': 'export const run = 1;\n',
      'judge/judge.ts': "import { run } from '../drill/run.js';\nexport const judge = run;\n",
    });
    expect(check(root, layers, {}, { judge: ['drill', 'harness'] }).breaches).toEqual([
      'src/judge/judge.ts imports src/drill/ (src/drill/run.js): judge never imports drill, harness',
    ]);
    // The shipped rule holds the judge off the drill.
    expect(check(root, layers, {}).breaches).toContainEqual(
      expect.stringMatching(/^src\/judge\/judge\.ts imports src\/drill\/ .*: judge never imports drill,/),
    );
  });

  // Each rule the house ships (not a made-up map): an import it forbids, on a small tree, fails with the rule's own line.
  const neverRules = Object.entries(NEVER_IMPORTS as Record<string, string[]>).flatMap(([folder, never]) => never.map((to) => [folder, to]));
  it.each(neverRules)('fails %s importing %s/, as the shipped rule says it never does', (folder, to) => {
    const root = tree({ [`${to}/m.ts`]: 'export const m = 1;\n', [`${folder}/a.ts`]: `import { m } from '../${to}/m.js';\nexport const a = m;\n` });
    expect(check(root).breaches).toContainEqual(
      expect.stringMatching(new RegExp(`^src/${folder}/a\\.ts imports src/${to}/ .*: ${folder} never imports`)),
    );
  });

  const doorRules = Object.entries(ONLY_IMPORTED_BY as Record<string, string[]>).map(([door, by]) => [door, by.join(', ')]);
  it.each(doorRules)('fails an import of %s/ by a folder other than %s, as the shipped rule says', (door) => {
    const root = tree({ [`${door}/m.ts`]: 'export const m = 1;\n', 'drill/a.ts': `import { m } from '../${door}/m.js';\nexport const a = m;\n` });
    expect(check(root).breaches).toContainEqual(
      expect.stringMatching(new RegExp(`^src/drill/a\\.ts imports src/${door}/ .*: ${door} is imported only by`)),
    );
  });

  it('fails a layer table in docs/contributing.md that is not the one the map generates, and passes the generated one', () => {
    const markers = (body: string) =>
      '# c\n\n<!-- layers:start: generated by `node scripts/check-structure.mjs --write-docs` from LAYERS, ONLY_IMPORTED_BY, NEVER_IMPORTS and HOLDS -->\n' +
      `${body}\n<!-- layers:end -->\n`;
    const root = tree({ 'kernel/a.ts': 'export const a = 1;\n' });
    mkdirSync(join(root, 'docs'));
    writeFileSync(join(root, 'docs', 'contributing.md'), markers('| folder | may import |\n|---|---|\n| `kernel` | nothing |'));
    expect(check(root).breaches).toEqual([
      'docs/contributing.md: the layer table is not the one LAYERS generates (node scripts/check-structure.mjs --write-docs)',
    ]);
    writeFileSync(join(root, 'docs', 'contributing.md'), markers(table()));
    expect(check(root).breaches).toEqual([]);
    writeFileSync(join(root, 'docs', 'contributing.md'), '# c\n');
    expect(check(root).breaches).toContainEqual(expect.stringMatching(/^docs\/contributing\.md: the layer table's markers are missing/));
  });

  it('holds for this repository', () => {
    expect(check(join(import.meta.dirname, '..', '..')).breaches).toEqual([]);
  });
});
