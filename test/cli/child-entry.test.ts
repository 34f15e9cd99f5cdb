import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { tempRunDir } from '../helpers/run-dir.js';

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/child-main.cjs', import.meta.url));
const UNBUNDLED = fileURLToPath(new URL('../../dist/cli/child-main.js', import.meta.url));
const LOG_MODULES = fileURLToPath(new URL('../fixtures/log-modules.cjs', import.meta.url));

describe("the children's entry: a drill's processes load only their own command", () => {
  let run: ReturnType<typeof tempRunDir>;
  beforeEach(() => {
    run = tempRunDir('child-entry');
  });
  afterEach(() => run.remove());

  it('the harness starts the bundle that npm run build writes, through the loader that compiles it from its code cache', () => {
    expect(CLI_PATH).toMatch(/dist\/cli\/child-loader\.cjs$/);
  });

  it("a worker's start loads no package but better-sqlite3: the rest (zod) is in the bundle, each adapter's package left to its own queue", async () => {
    const modules = `${run.dir}/modules.txt`;
    const worker = await execa(
      process.execPath,
      // With a world, a worker loads what runs a plan's steps before its first line (nothing calls it: the queue is empty).
      [
        '--import',
        LOG_MODULES,
        CLI_PATH,
        'worker',
        '--store',
        `${run.dir}/q.db`,
        '--id',
        'w1',
        '--world',
        'http://127.0.0.1:9',
        '--exit-when-drained',
      ],
      { reject: false, env: { QD_TEST_MODULES_FILE: modules } },
    );
    expect(worker.exitCode).toBe(0);
    const packages = new Set([...readFileSync(modules, 'utf8').matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map((m) => m[1]));
    // better-sqlite3 finds its native file with two small packages of its own.
    expect([...packages].sort()).toEqual(['better-sqlite3', 'bindings', 'file-uri-to-path']);
  });

  for (const [entry, path] of [
    ['bundled', CLI_PATH],
    // Node loading the bundle itself (no loader): its import() calls are its own.
    ['bundle without its loader', BUNDLE],
    ['unbundled', UNBUNDLED],
  ] as const) {
    it(`${entry}: runs a child's command, fails as the CLI does, and hands every other command to the whole CLI`, async () => {
      const store = `${run.dir}/${entry}.db`;
      const worker = await execa(process.execPath, [path, 'worker', '--store', store, '--id', 'w1', '--exit-when-drained'], { reject: false });
      expect(worker.exitCode).toBe(0);
      expect(worker.stdout).toContain('"event":"stopped"');
      const bad = await execa(process.execPath, [path, 'worker', '--store', store], { reject: false });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/^queue-drill: .*\bid\b/);
      const status = await execa(process.execPath, [path, 'status', '--store', store], { reject: false });
      expect(status.exitCode).toBe(0);
      expect(status.stdout).toMatch(/^jobs: 0/);
      const help = await execa(process.execPath, [path, 'worker', '--help'], { reject: false });
      expect(help.stdout).toContain('--lease-ms');
    });
  }
});
