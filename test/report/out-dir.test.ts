import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { UsageError } from '../../src/kernel/errors.js';
import { makeOutDir } from '../../src/report/out-dir.js';
import { tempRunDir } from '../helpers/run-dir.js';

describe('the --out folder', () => {
  let temp: ReturnType<typeof tempRunDir> | undefined;
  afterEach(() => temp?.remove());

  it('is made where missing, level by level, and says which folder it made first', () => {
    temp = tempRunDir('out-dir');
    const out = join(temp.dir, 'a', 'b', 'c');
    expect(makeOutDir(out)).toBe(join(temp.dir, 'a'));
    expect(existsSync(out)).toBe(true);
    expect(makeOutDir(out)).toBeUndefined();
  });

  it('is bad input naming the flag when it is a file, under a file, or cannot be made (/proc/x, where a recursive mkdir spins for ever)', () => {
    temp = tempRunDir('out-dir');
    const file = join(temp.dir, 'a-file');
    writeFileSync(file, 'x');
    expect(() => makeOutDir(file)).toThrow(UsageError);
    expect(() => makeOutDir(file)).toThrow(`--out ${file}: the runs cannot be written there (${file} is not a folder)`);
    expect(() => makeOutDir(join(file, 'x'))).toThrow(/^--out .*a-file\/x: the runs cannot be written there \(ENOTDIR/);
    if (existsSync('/proc/self')) expect(() => makeOutDir('/proc/x/y')).toThrow(/^--out \/proc\/x\/y: the runs cannot be written there \(ENOENT/);
  });

  it('stops run with exit 2 and one line naming --out, before any drill, where it once ended with a raw ENOTDIR (exit 3)', async () => {
    temp = tempRunDir('out-dir');
    const file = join(temp.dir, 'a-file');
    writeFileSync(file, 'x');
    const result = await execa(
      process.execPath,
      [CLI_PATH, 'run', 'scenarios.yaml', '--only', 'crash-after-claim', '--time-scale', '1', '--out', file],
      {
        reject: false,
      },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`--out ${file}: the runs cannot be written there (${file} is not a folder)`);
  });
});
