import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * `npm run drill` builds only when what dist/ is built from changed: run in a
 * small project of its own whose build counts its runs, the script builds the
 * first time, not the second, and again once a source changes.
 */

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

function project(): { dir: string; drill: () => string; builds: () => number } {
  const temp = tempRunDir('build-if-stale');
  cleanup.push(temp.remove);
  const dir = temp.dir;
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, 'src'));
  copyFileSync(join(import.meta.dirname, '../../scripts/build-if-stale.mjs'), join(dir, 'scripts/build-if-stale.mjs'));
  writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1;\n');
  const build =
    "node -e \"const fs=require('node:fs');fs.mkdirSync('dist/cli',{recursive:true});fs.writeFileSync('dist/cli/main.js','');" +
    "fs.appendFileSync('builds','x')\" && node scripts/build-if-stale.mjs --stamp";
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts: { build } }));
  const drill = () =>
    execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const builds = () => {
    try {
      return readFileSync(join(dir, 'builds'), 'utf8').length;
    } catch {
      return 0;
    }
  };
  return { dir, drill, builds };
}

describe('build-if-stale (npm run drill, npm run demo)', () => {
  it('builds the first time, not again while nothing changed, and again once a source did', { timeout: 60_000 }, () => {
    const { dir, drill, builds } = project();
    drill();
    expect(builds()).toBe(1);
    drill();
    expect(builds()).toBe(1);
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
    drill();
    expect(builds()).toBe(2);
    drill();
    expect(builds()).toBe(2);
    // A build with no stamp beside it (one made before this script) is rebuilt.
    writeFileSync(join(dir, 'dist/.build-inputs'), 'something else\n');
    drill();
    expect(builds()).toBe(3);
  });
});
