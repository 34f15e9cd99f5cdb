import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * What a drill writes goes under --out, and nowhere else: not the working
 * directory, not the temp directory (each set to an empty directory of its
 * own here), and a scenario's name, which becomes a directory, cannot lead
 * out of it.
 */

const SMALL = resolve('test/fixtures/scenarios/drill-small.yaml');

describe('--out', () => {
  it.each([
    { command: 'run', args: ['run', SMALL, '--only', 'crash-after-claim'], keeps: true },
    // A clean explore keeps no run directory, so it leaves no --out either, and says so.
    { command: 'explore', args: ['explore', '--runs', '2', '--seed', '3', '--parallel', '1'], keeps: false },
    { command: 'compare', args: ['compare', SMALL, '--only', 'crash-after-claim', '--queues', 'sqlite'], keeps: true },
  ])('$command writes under --out only', { timeout: 60_000 }, async ({ args, keeps }) => {
    const run = tempRunDir('out-dir');
    try {
      const cwd = join(run.dir, 'cwd');
      const tmp = join(run.dir, 'tmp');
      const out = join(run.dir, 'out');
      for (const dir of [cwd, tmp]) mkdirSync(dir);
      const result = await execa(process.execPath, [CLI_PATH, ...args, '--out', out], { cwd, env: { TMPDIR: tmp, CI: 'true' }, reject: false });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(readdirSync(cwd), 'nothing in the working directory').toEqual([]);
      expect(readdirSync(tmp), 'nothing in the temp directory').toEqual([]);
      if (keeps) expect(readdirSync(out).length).toBeGreaterThan(0);
      else {
        expect(existsSync(out), 'a folder left empty is not made').toBe(false);
        expect(result.stdout).toContain('nothing found, nothing written');
        expect(`${result.stdout}${result.stderr}`, 'no folder named that stays empty').not.toContain(out);
      }
    } finally {
      run.remove();
    }
  });

  it('refuses a scenario whose name would lead out of the run directory, at its line', async () => {
    const run = tempRunDir('out-name');
    try {
      const file = join(run.dir, 'escape.yaml');
      writeFileSync(file, readFileSync(SMALL, 'utf8').replace('- name: crash-after-claim', '- name: ../../escape'));
      const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--out', join(run.dir, 'out')], { reject: false });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(
        /escape\.yaml:\d+:\d+ scenarios\[0\]\.name: lowercase letters, digits and dashes; got the string "\.\.\/\.\.\/escape"/,
      );
      expect(readdirSync(run.dir)).toEqual(['escape.yaml']);
    } finally {
      run.remove();
    }
  });
});
