/*
 * The file the harness starts a drill's processes from (src/harness/cli-path.ts). It runs the bundle of the
 * children's entry (dist/bundle/child-main.cjs, made by scripts/bundle-children.mjs) compiled from the V8 code
 * cache the build made of it, where Node would compile its 860 KB again at every start (module.enableCompileCache
 * is Node 22's, not 20's). It does for the bundle what Node's CommonJS loader does, with vm.Script, which takes a
 * cache and makes one: wraps the bundle as a module, compiles it and runs it with the bundle's own require,
 * module, __filename and __dirname. A cache that is missing, stale or refused by V8 (another Node, other flags)
 * only costs the compile it would have saved: never an error, never a line of output.
 *
 * CommonJS, so that Node compiles this file itself and its import() works: a script compiled by vm has none in
 * Node 20 without an experimental flag, whose warning would land in the child's stderr, the drill's evidence. The
 * bundle's import() calls are rewritten at build to call the one this file lends it.
 *
 * V8 checks a cache against the source's length only: a bundle changed to the same length would run the code
 * cached from the old one. So the cache's first line names the bundle it was made from (the id the bundle's last
 * line carries, a sha256 of its text, written at build), and a bundle written after its cache (an edit in place)
 * is not run from it. Both checks cost what is read anyway and two stats: no hash at start.
 */
import { appendFileSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { join } from 'node:path';
import { Script } from 'node:vm';

const BUNDLE_DIR = join(__dirname, '..', 'bundle');
const BUNDLE = join(BUNDLE_DIR, 'child-main.cjs');
const CODE_CACHE = join(BUNDLE_DIR, 'child-main.v8-cache');
/** The bundle's last line ends with its id, 64 hex digits, then a newline; the cache's first line is that id. */
const ID_LENGTH = 64;
/** The name the bundle's banner looks up to find the import() it calls (scripts/bundle-children.mjs). */
const IMPORT_GLOBAL = '__queueDrillImport';

/** Set by the build, to make the cache: run as a child does, then write what V8 compiled on the way out. */
const MAKE_ENV = 'QD_CODE_CACHE_MAKE';
/** A file to append how this start used the cache to, one word a line (tests; a look at a slow start). */
const REPORT_ENV = 'QD_CODE_CACHE_REPORT';

type CacheUse = 'accepted' | 'rejected' | 'stale' | 'missing' | 'making';

/** The cache V8 made from the bundle whose id is `bundleId`, or why there is none to use. */
function codeCacheFor(bundleId: string): Buffer | 'missing' | 'stale' {
  let cache: Buffer;
  try {
    cache = readFileSync(CODE_CACHE);
    if (statSync(BUNDLE).mtimeMs > statSync(CODE_CACHE).mtimeMs) return 'stale';
  } catch {
    return 'missing';
  }
  return cache.toString('latin1', 0, ID_LENGTH) === bundleId ? cache.subarray(ID_LENGTH + 1) : 'stale';
}

/** Writes the cache V8 can make of `script` now, under its bundle's id; a reader never sees half of it. */
function writeCodeCache(script: Script, bundleId: string): void {
  const partial = `${CODE_CACHE}.${process.pid}`;
  writeFileSync(partial, Buffer.concat([Buffer.from(`${bundleId}\n`, 'latin1'), script.createCachedData()]));
  renameSync(partial, CODE_CACHE);
}

const source = readFileSync(BUNDLE, 'utf8');
const bundleId = source.slice(-ID_LENGTH - 1, -1);
const making = process.env[MAKE_ENV] !== undefined;
const cache = making ? 'making' : codeCacheFor(bundleId);
const script = new Script(Module.wrap(source), { filename: BUNDLE, cachedData: typeof cache === 'string' ? undefined : cache });
const use: CacheUse = typeof cache === 'string' ? cache : script.cachedDataRejected ? 'rejected' : 'accepted';
const report = process.env[REPORT_ENV];
if (report) appendFileSync(report, `${use}\n`);
if (making) {
  // Only this process makes it: a child it starts runs as any other.
  delete process.env[MAKE_ENV];
  // At exit, so the functions the command ran, compiled as it went, are in the cache too.
  process.once('exit', () => writeCodeCache(script, bundleId));
}

const globals = globalThis as { [IMPORT_GLOBAL]?: (specifier: string) => Promise<unknown> };
globals[IMPORT_GLOBAL] = (specifier) => import(specifier);
const bundleModule = new Module(BUNDLE, module);
bundleModule.filename = BUNDLE;
const runBundle = script.runInThisContext() as (...moduleScope: unknown[]) => void;
runBundle.call(bundleModule.exports, bundleModule.exports, createRequire(BUNDLE), bundleModule, BUNDLE, BUNDLE_DIR);
bundleModule.loaded = true;
// The bundle's first line took it; nothing else should find it.
delete globals[IMPORT_GLOBAL];
