import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandPrefix, pathForUser, printedCommand, shellWord, userDirectory } from '../../src/kernel/printed-command.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * Each way a person can stand, made of real files: a clone of queue-drill, a
 * project that installed it, a global install on the PATH, npm's passing
 * node_modules/.bin, and a directory from which none of those reach it.
 */

const dirs: Array<{ remove: () => void }> = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) dir.remove();
});

/** A temp folder holding a queue-drill "clone" (package.json, dist/cli/main.js) and room for the rest. */
function world() {
  const run = tempRunDir('prefix');
  dirs.push(run);
  const clone = join(run.dir, 'clone');
  mkdirSync(join(clone, 'dist', 'cli'), { recursive: true });
  mkdirSync(join(clone, 'src'));
  const main = join(clone, 'dist', 'cli', 'main.js');
  writeFileSync(main, '#!/usr/bin/env node\n');
  writeFileSync(join(clone, 'package.json'), JSON.stringify({ name: 'queue-drill', bin: { 'queue-drill': 'dist/cli/main.js' } }));
  const elsewhere = join(run.dir, 'elsewhere');
  mkdirSync(elsewhere);
  /** A folder holding a `queue-drill` link to `target` (the PATH's bin folder, a project's node_modules/.bin). */
  const binDir = (dir: string, target = main) => {
    mkdirSync(dir, { recursive: true });
    symlinkSync(target, join(dir, 'queue-drill'));
    return dir;
  };
  return { root: run.dir, clone, main, elsewhere, binDir };
}

describe('commandPrefix', () => {
  it('is queue-drill when that name on the PATH is this CLI (a global install)', () => {
    const w = world();
    const bin = w.binDir(join(w.root, 'global', 'bin'));
    expect(commandPrefix({ userDir: w.elsewhere, path: `/usr/bin:${bin}`, main: w.main })).toEqual(['queue-drill']);
  });

  it("passes over npm's node_modules/.bin on the PATH, gone once npm returns", () => {
    const w = world();
    const bin = w.binDir(join(w.root, 'project', 'node_modules', '.bin'));
    expect(commandPrefix({ userDir: w.elsewhere, path: bin, main: w.main })).toEqual(['node', w.main]);
  });

  it('is not queue-drill when the one on the PATH is another program of that name', () => {
    const w = world();
    const other = join(w.root, 'other.js');
    writeFileSync(other, '');
    const bin = w.binDir(join(w.root, 'global', 'bin'), other);
    expect(commandPrefix({ userDir: w.elsewhere, path: bin, main: w.main })).toEqual(['node', w.main]);
  });

  it('is npx queue-drill in a clone, and in a folder below it (npx finds the package.json up the tree)', () => {
    const w = world();
    expect(commandPrefix({ userDir: w.clone, path: '/usr/bin', main: w.main })).toEqual(['npx', 'queue-drill']);
    expect(commandPrefix({ userDir: join(w.clone, 'src'), path: '/usr/bin', main: w.main })).toEqual(['npx', 'queue-drill']);
  });

  it('is npx queue-drill in a project that installed it', () => {
    const w = world();
    const project = join(w.root, 'project');
    w.binDir(join(project, 'node_modules', '.bin'));
    writeFileSync(join(project, 'package.json'), '{"name":"my-queue"}');
    expect(commandPrefix({ userDir: project, path: '/usr/bin', main: w.main })).toEqual(['npx', 'queue-drill']);
  });

  it("is not npx in a project whose queue-drill bin is another file, nor where npx's project is not the clone", () => {
    const w = world();
    const impostor = join(w.root, 'impostor');
    mkdirSync(join(impostor, 'bin'), { recursive: true });
    writeFileSync(join(impostor, 'bin', 'x.js'), '');
    writeFileSync(join(impostor, 'package.json'), JSON.stringify({ name: 'queue-drill', bin: 'bin/x.js' }));
    expect(commandPrefix({ userDir: impostor, path: '', main: w.main })).toEqual(['node', w.main]);
    // A package.json of its own below the clone: npx works there, where queue-drill is not installed.
    const nested = join(w.clone, 'src');
    writeFileSync(join(nested, 'package.json'), '{"name":"nested"}');
    expect(commandPrefix({ userDir: nested, path: '', main: w.main })).toEqual(['node', w.main]);
  });

  it('is node with the CLI path otherwise: absolute from outside, relative from above it', () => {
    const w = world();
    expect(commandPrefix({ userDir: w.elsewhere, path: '', main: w.main })).toEqual(['node', w.main]);
    // The folder above the clone has no package.json of its own: npx would not find queue-drill there.
    expect(commandPrefix({ userDir: w.root, path: '', main: w.main })).toEqual(['node', join('clone', 'dist', 'cli', 'main.js')]);
  });
});

describe('userDirectory', () => {
  it('is where npm was typed (INIT_CWD) when an npm script or npx runs queue-drill, else the working directory', () => {
    const env = (script: string | undefined) => ({
      INIT_CWD: '/home/me/clone/src',
      ...(script === undefined ? {} : { npm_lifecycle_script: script }),
    });
    expect(userDirectory(env('node dist/cli/main.js run'), '/home/me/clone')).toBe('/home/me/clone/src');
    expect(userDirectory(env('queue-drill run'), '/home/me/clone')).toBe('/home/me/clone/src');
    // npm test's INIT_CWD is inherited by what the tests start: not where a person typed queue-drill.
    expect(userDirectory(env('vitest run'), '/tmp/t')).toBe('/tmp/t');
    expect(userDirectory(env(undefined), '/tmp/t')).toBe('/tmp/t');
  });
});

describe('pathForUser', () => {
  it('keeps a path as given from where it was typed, and makes it valid from where the person stands', () => {
    expect(pathForUser('scenarios.yaml', '/r', '/r')).toBe('scenarios.yaml');
    expect(pathForUser('/abs/s.yaml', '/elsewhere', '/r')).toBe('/abs/s.yaml');
    // npm ran the script from the clone's root; the person stands in its src/.
    expect(pathForUser('drill-runs/x/s.yaml', '/r', '/r/src')).toBe(join('src', 'drill-runs', 'x', 's.yaml'));
    expect(pathForUser('scenarios.yaml', '/r/src', '/r')).toBe('/r/scenarios.yaml');
  });
});

describe('printedCommand', () => {
  it('quotes what a shell would split or expand', () => {
    expect(shellWord('sketch-literal')).toBe('sketch-literal');
    expect(shellWord('process:python3 q.py')).toBe("'process:python3 q.py'");
    expect(shellWord("it's $HOME")).toBe(`'it'\\''s $HOME'`);
    expect(printedCommand(['run', 'a b.yaml', '--seed', '1'])).toMatch(/ run 'a b\.yaml' --seed 1$/);
  });

  it('starts with npx queue-drill in this clone, where the tests run (queue-drill if the clone is installed globally)', () => {
    expect(['npx queue-drill queues', 'queue-drill queues']).toContain(printedCommand(['queues']));
  });
});
