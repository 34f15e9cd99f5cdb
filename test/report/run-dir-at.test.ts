import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { runDirAt } from '../../src/report/write-report.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A run directory is made, not only named, so drills started in the same
 * millisecond into one --out never share one: checked in this process, and
 * across processes racing for the same name (the compiled module, as the CLI
 * runs it).
 */

const COMPILED = fileURLToPath(new URL('../../dist/report/write-report.js', import.meta.url));
const MS = Date.UTC(2026, 11, 3, 12, 0, 0, 123);
const STAMP = '2026-12-03T12-00-00.123Z';

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

describe('runDirAt', () => {
  it('makes the UTC-time name first, then the same with -2, -3 for drills of the same millisecond', () => {
    const out = tempRunDir('run-dir-at');
    cleanup.push(out.remove);
    const root = join(out.dir, 'runs', 'nested');
    const made = [runDirAt(root, MS), runDirAt(root, MS), runDirAt(root, MS), runDirAt(root, MS + 1)];
    expect(made).toEqual([STAMP, `${STAMP}-2`, `${STAMP}-3`, '2026-12-03T12-00-00.124Z'].map((name) => join(root, name)));
    expect(readdirSync(root).sort()).toEqual([STAMP, `${STAMP}-2`, `${STAMP}-3`, '2026-12-03T12-00-00.124Z'].sort());
  });

  it('gives processes racing in the same millisecond a directory each', async () => {
    const out = tempRunDir('run-dir-race');
    cleanup.push(out.remove);
    const script = `const { runDirAt } = await import(${JSON.stringify(COMPILED)});
      for (let i = 0; i < 5; i++) console.log(runDirAt(process.argv[1], ${MS}));`;
    const racers = await Promise.all(
      Array.from({ length: 4 }, () => execa(process.execPath, ['--input-type=module', '-e', script, out.dir], { reject: false })),
    );
    for (const racer of racers) expect(racer.exitCode, racer.stderr).toBe(0);
    const made = racers.flatMap((racer) => racer.stdout.split('\n'));
    expect(made).toHaveLength(20);
    expect(new Set(made).size).toBe(20);
    expect(made).toContain(join(out.dir, STAMP));
    expect(readdirSync(out.dir)).toHaveLength(20);
  });
});
