import { copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The child loader (src/cli/child-loader.cts): a drill's processes compile the bundle from the V8 code cache the
 * build made, its import() calls still work from there, and a cache made from other code is never run.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUILT = {
  loader: join(ROOT, 'dist/cli/child-loader.cjs'),
  bundle: join(ROOT, 'dist/bundle/child-main.cjs'),
  cache: join(ROOT, 'dist/bundle/child-main.v8-cache'),
};
/** Where a worker says it is up: code its start runs, so code the build's cache holds compiled. */
const WORKER_STARTED = '{ event: "started", pid: process.pid, leaseMs';
/** How the bundle ends: its id (64 hex digits, scripts/bundle-children.mjs), then a newline. */
const BUNDLE_ID = /[0-9a-f]{64}\n$/;

/** A bundle and a cache (none: no file) a worker is started from; the cache is written last, as the build does, unless not. */
type FilesCase = {
  name: string;
  bundle: () => string;
  cache?: () => Buffer;
  bundleWrittenAfterCache?: true;
  /** What the loader reports it did with the cache. */
  cacheUse: 'accepted' | 'stale' | 'rejected' | 'missing';
  /** The event the worker's start line names: `started` from the cache's code, `STARTED` from the changed bundle's. */
  event: 'started' | 'STARTED';
};

/** Starts `loader` with `args`; what the child did, and how it used the code cache, as the loader reports it. */
async function startChild(loader: string, args: string[], dir: string, env: Record<string, string> = {}) {
  const report = join(dir, 'cache-use.txt');
  rmSync(report, { force: true });
  const child = await execa(process.execPath, [loader, ...args], { reject: false, env: { ...env, QD_CODE_CACHE_REPORT: report } });
  return { ...child, cacheUse: readFileSync(report, 'utf8').trim() };
}

describe('the child loader: the bundle compiled from the code cache the build made', () => {
  let run: ReturnType<typeof tempRunDir>;
  beforeEach(() => {
    run = tempRunDir('code-cache');
  });
  afterEach(() => run.remove());

  it('the harness starts the loader, which takes the cache and says nothing of it', async () => {
    expect(CLI_PATH).toBe(BUILT.loader);
    const probe = await startChild(CLI_PATH, ['probe'], run.dir);
    expect(probe).toMatchObject({ exitCode: 0, stdout: 'up', stderr: '', cacheUse: 'accepted' });
  });

  // Each import() in the bundle, run from the cache: a script compiled by vm has no import() of its own in Node 20.
  const imports: Array<{ site: string; command: (dir: string) => string[]; env?: Record<string, string>; exitCode: number; output: RegExp }> = [
    { site: 'the whole CLI, for a command no child runs', command: () => ['queues'], exitCode: 0, output: /^Every queue --queue accepts/ },
    {
      site: 'an adapter module, by its file',
      command: (dir) => {
        writeFileSync(join(dir, 'not-an-adapter.mjs'), 'export default {};\n');
        return ['worker', '--store', join(dir, 'q.db'), '--id', 'w1', '--queue', `adapter:${join(dir, 'not-an-adapter.mjs')}`];
      },
      // Imported, then refused for its shape: an import that failed says "cannot be imported".
      exitCode: 2,
      output: /is not a queue adapter/,
    },
    {
      site: "PostgreSQL's driver",
      command: () => ['producer', '--queue', 'postgres', '--store', 'code_cache_test', '--count', '1'],
      // Loaded, then no server on port 1.
      env: { QD_PG_URL: 'postgres://127.0.0.1:1/none' },
      exitCode: 2,
      output: /cannot connect to PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/none: connect ECONNREFUSED/,
    },
  ];
  for (const { site, command, env, exitCode, output } of imports) {
    it(`import() works from the cache: ${site}`, async () => {
      const child = await startChild(CLI_PATH, command(run.dir), run.dir, env);
      expect(child.cacheUse).toBe('accepted');
      expect(child.exitCode).toBe(exitCode);
      expect(`${child.stdout}${child.stderr}`).toMatch(output);
    });
  }
});

describe('a cache made from other code than the bundle is not run', () => {
  let run: ReturnType<typeof tempRunDir>;
  let loader: string;
  let bundle: string;
  let cache: string;
  beforeEach(() => {
    // A copy of the build, laid out as dist/ is in the package, which the test may change.
    run = tempRunDir('code-cache-stale');
    mkdirSync(join(run.dir, 'dist/cli'), { recursive: true });
    mkdirSync(join(run.dir, 'dist/bundle'));
    symlinkSync(join(ROOT, 'node_modules'), join(run.dir, 'node_modules'));
    copyFileSync(join(ROOT, 'package.json'), join(run.dir, 'package.json'));
    loader = join(run.dir, 'dist/cli/child-loader.cjs');
    bundle = join(run.dir, 'dist/bundle/child-main.cjs');
    cache = join(run.dir, 'dist/bundle/child-main.v8-cache');
    copyFileSync(BUILT.loader, loader);
  });
  afterEach(() => run.remove());

  /** The built bundle with the worker's start line changed, its length kept, so V8's own check (the length) passes. */
  function changedBundle(): string {
    const built = readFileSync(BUILT.bundle, 'utf8');
    expect(built.split(WORKER_STARTED)).toHaveLength(2);
    return built.replace(WORKER_STARTED, WORKER_STARTED.replace('started', 'STARTED'));
  }
  /** `bundle` as a build of it would end: with its own id, not the one the cache was made for. */
  const withAnotherId = (bundle: string) => bundle.replace(BUNDLE_ID, `${'0'.repeat(64)}\n`);
  const builtBundle = () => readFileSync(BUILT.bundle, 'utf8');
  const builtCache = () => readFileSync(BUILT.cache);

  const cases: FilesCase[] = [
    { name: 'the bundle as built', bundle: builtBundle, cache: builtCache, cacheUse: 'accepted', event: 'started' },
    // What the two checks below guard against: V8 alone takes the old cache and runs the old code.
    {
      name: 'changed to the same length, with the id and times it was built with (no build does this)',
      bundle: changedBundle,
      cache: builtCache,
      cacheUse: 'accepted',
      event: 'started',
    },
    {
      name: 'rebuilt to the same length: another id',
      bundle: () => withAnotherId(changedBundle()),
      cache: builtCache,
      cacheUse: 'stale',
      event: 'STARTED',
    },
    {
      name: 'edited in place to the same length, after its cache was made',
      bundle: changedBundle,
      cache: builtCache,
      bundleWrittenAfterCache: true,
      cacheUse: 'stale',
      event: 'STARTED',
    },
    {
      name: 'a cache V8 refuses (here cut short; another Node, other flags)',
      bundle: changedBundle,
      cache: () => builtCache().subarray(0, 100_000),
      cacheUse: 'rejected',
      event: 'STARTED',
    },
    { name: 'no cache', bundle: changedBundle, cacheUse: 'missing', event: 'STARTED' },
  ];
  for (const files of cases) {
    const runs = files.event === 'started' ? 'cached' : "bundle's own";
    it(`${files.name}: ${files.cacheUse}, and a worker runs the ${runs} code`, async () => {
      writeFileSync(bundle, files.bundle());
      if (files.cache) writeFileSync(cache, files.cache());
      const built = new Date('2026-01-01T00:00:00Z');
      const later = new Date('2026-01-01T00:00:10Z');
      utimesSync(bundle, built, files.bundleWrittenAfterCache ? later : built);
      if (files.cache) utimesSync(cache, built, built);
      const worker = await startChild(loader, ['worker', '--store', join(run.dir, 'q.db'), '--id', 'w1', '--exit-when-drained'], run.dir);
      expect(worker).toMatchObject({ exitCode: 0, stderr: '', cacheUse: files.cacheUse });
      expect(worker.stdout).toContain(`"event":"${files.event}"`);
    });
  }
});
