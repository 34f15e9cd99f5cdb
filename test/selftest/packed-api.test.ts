import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * The library as a user gets it: this package packed (`npm pack`), the tarball
 * installed into a new project, and a plain ESM script there importing
 * `queue-drill` to run the shipped crash-after-claim on SQLite, from another
 * directory, so the drill's child processes must be found from the installed
 * package, not from the current directory. Then the types: a small TypeScript
 * file using them, type-checked by the repository's TypeScript against the
 * installed package's declarations.
 *
 * Installing: `npm ci --offline` from a lockfile made of this repository's own
 * (its runtime entries, plus the tarball), so every dependency comes from
 * npm's cache at the versions this repository tests, with no network, and no
 * install scripts: better-sqlite3's would build it from source for minutes
 * (there is no prebuilt binary to download here), so its binary, built by this
 * repository's `npm ci` for the very same version, is copied in. When the cache
 * lacks a package (`ENOTCACHED`), the install goes to the registry instead.
 */

const REPO = resolve('.');
const root = mkdtempSync(join(tmpdir(), 'queue-drill-packed-'));
const project = join(root, 'project');
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Lockfile {
  lockfileVersion: number;
  packages: Record<string, { dev?: boolean; version?: string; dependencies?: Record<string, string>; bin?: unknown; engines?: unknown }>;
}

/** npm pack into `root`: the tarball's path and the files it holds. */
async function pack(): Promise<{ tarball: string; files: string[] }> {
  // --ignore-scripts: no prepack build; the test run built dist/ already (pretest), and the other tests use it.
  const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: REPO });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: join(root, info!.filename), files: info!.files.map((f) => f.path) };
}

/** The new project: the tarball as its one dependency, and a lockfile pinning the rest to this repository's versions. */
function writeProject(tarball: string): void {
  mkdirSync(project);
  const spec = `file:${tarball}`;
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'uses-queue-drill', private: true, type: 'module', dependencies: { 'queue-drill': spec } }),
  );
  const lock = JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as Lockfile;
  const self = lock.packages['']!;
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  const packages: Lockfile['packages'] = {
    '': { dependencies: { 'queue-drill': spec } },
    'node_modules/queue-drill': {
      version: self.version,
      resolved: spec,
      integrity,
      dependencies: self.dependencies,
      bin: self.bin,
      engines: self.engines,
    } as never,
  };
  for (const [path, entry] of Object.entries(lock.packages)) if (path !== '' && !entry.dev) packages[path] = entry;
  writeFileSync(
    join(project, 'package-lock.json'),
    JSON.stringify({ name: 'uses-queue-drill', lockfileVersion: lock.lockfileVersion, requires: true, packages }),
  );
}

/** npm ci in the project, from the cache when it can; how long it took and whether it went to the registry. */
async function install(): Promise<{ ms: number; online: boolean }> {
  const started = Date.now();
  const args = ['ci', '--ignore-scripts', '--no-audit', '--no-fund'];
  const offline = await execa('npm', [...args, '--offline'], { cwd: project, reject: false });
  if (offline.exitCode === 0) return { ms: Date.now() - started, online: false };
  expect(offline.stderr, 'npm ci --offline failed for a reason other than a package missing from the cache').toContain('ENOTCACHED');
  process.stderr.write('packed-api: a dependency is not in npm’s cache; installing from the registry instead\n');
  await execa('npm', [...args, '--prefer-offline'], { cwd: project });
  return { ms: Date.now() - started, online: true };
}

/** better-sqlite3's binary, from this repository's install of the same version. */
function copyBetterSqlite(): void {
  const version = (dir: string) =>
    (JSON.parse(readFileSync(join(dir, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version;
  expect(version(project)).toBe(version(REPO));
  const binary = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
  mkdirSync(join(project, 'node_modules/better-sqlite3/build/Release'), { recursive: true });
  copyFileSync(join(REPO, binary), join(project, binary));
}

/** TypeScript, strict and with skipLibCheck off, over `files` in the project, as a user's own tsconfig (`name`) sets it. */
async function typeCheck(name: string, files: string[], more: Record<string, unknown> = {}) {
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    // The user's own @types/node; this project borrows the repository's.
    typeRoots: [join(REPO, 'node_modules/@types')],
    types: ['node'],
    ...more,
  };
  writeFileSync(join(project, name), JSON.stringify({ compilerOptions, files }));
  return execa(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(project, name)], { cwd: project, reject: false });
}

describe('the packed package, installed as a user installs it', () => {
  let files: string[] = [];
  beforeAll(async () => {
    expect(existsSync(join(REPO, 'dist/api/index.js')) && existsSync(join(REPO, 'dist/api/index.d.ts')), 'dist/ is built (npm run build)').toBe(true);
    const packed = await pack();
    files = packed.files;
    writeProject(packed.tarball);
    const { ms, online } = await install();
    process.stderr.write(
      `packed-api: installed the tarball and its dependencies in ${(ms / 1000).toFixed(1)} s${online ? ' (from the registry)' : ' (offline)'}\n`,
    );
    copyBetterSqlite();
  }, 300_000);

  it("ships the entry point, its types, the CLI, the shipped scenarios and their schema, the protocol's schema, and nothing of src or test", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/api/index.js',
        'dist/api/index.d.ts',
        'dist/cli/main.js',
        'scenarios.yaml',
        'scenarios.schema.json',
        'protocol.schema.json',
      ]),
    );
    expect(files.filter((file) => /^(src|test|docs)\//.test(file))).toEqual([]);
    // Installed as a copy of its own, not a link back into this repository.
    expect(realpathSync(join(project, 'node_modules/queue-drill')).startsWith(realpathSync(root))).toBe(true);
  });

  it('runs a drill from a script that imports queue-drill, from another directory', { timeout: 120_000 }, async () => {
    writeFileSync(
      join(project, 'drill.mjs'),
      [
        "import { EXIT, loadScenarios, runDrill, SHIPPED_SCENARIOS } from 'queue-drill';",
        "const scenarios = loadScenarios(SHIPPED_SCENARIOS, { only: ['crash-after-claim'], queue: 'sqlite' });",
        'const { report, exitCode, written, runDir } = await runDrill({ scenarios, parallel: 1, out: process.argv[2] });',
        'console.log(JSON.stringify({ exitCode, ok: exitCode === EXIT.ok, verdicts: report.scenarios.map((s) => [s.name, s.verdict]), json: written.json, runDir }));',
      ].join('\n'),
    );
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    const out = join(root, 'drill-runs');
    const script = await execa(process.execPath, [join(project, 'drill.mjs'), out], { cwd: elsewhere, reject: false, env: { CI: 'true' } });
    expect(script.exitCode, script.stderr).toBe(0);
    const result = JSON.parse(script.stdout) as { exitCode: number; ok: boolean; verdicts: string[][]; json: string; runDir: string };
    expect(result).toMatchObject({ exitCode: 0, ok: true, verdicts: [['crash-after-claim', 'pass']] });
    expect(result.json).toBe(join(result.runDir, 'report.json'));
    expect(JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8'))).toMatchObject({ exitCode: 0, summary: { passed: 1 } });
    // The shipped scenarios were the installed package's own.
    expect(JSON.parse(readFileSync(result.json, 'utf8')).file).toBe(join(realpathSync(project), 'node_modules/queue-drill/scenarios.yaml'));
  });

  it('drills an adapter module that lives in the project, by the installed CLI, as the README says', { timeout: 180_000 }, async () => {
    // The example adapter, copied into the project as a user's own: it imports queue-drill/adapter from the installed package.
    const mine = join(project, 'my-queue');
    cpSync(join(REPO, 'examples/js-queue'), mine, { recursive: true });
    const out = join(root, 'adapter-runs');
    const cli = join(project, 'node_modules/.bin/queue-drill');
    const run = await execa(
      cli,
      [
        'run',
        'node_modules/queue-drill/scenarios.yaml',
        '--adapter',
        './my-queue/adapter.js',
        '--only',
        'crash-after-claim,max-retries',
        '--out',
        out,
        '--json',
      ],
      { cwd: project, reject: false, env: { CI: 'true' } },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      queue: string | null;
      scenarios: Array<{ name: string; verdict: string; queue: string; queueVersion: string }>;
    };
    expect(report.scenarios.map((s) => [s.name, s.verdict])).toEqual([
      ['crash-after-claim', 'pass'],
      ['max-retries', 'pass'],
    ]);
    // Named by its absolute path, as every process of the drill imported it.
    expect(report.scenarios[0]!.queue).toBe(`adapter:${join(realpathSync(project), 'my-queue/adapter.js')}`);
    expect(report.scenarios[0]!.queueVersion).toBe('1.0.0');
  });

  it('gives an adapter its types from queue-drill/adapter, with skipLibCheck off', { timeout: 120_000 }, async () => {
    writeFileSync(
      join(project, 'my-adapter.ts'),
      [
        "import { type Claim, type QueueAdapter, type QueueConnection, retryDelayMs, type Settlement, utc } from 'queue-drill/adapter';",
        'declare function connectToMyQueue(locator: string): Promise<QueueConnection>;',
        'const adapter: QueueAdapter = {',
        "  name: 'my-queue', description: 'mine', version: '1.0.0', soundness: 'sound', locatorKind: 'name',",
        '  capabilities: {',
        "    evidence: { history: true, refusals: 'not kept', epoch: true, holder: true, digest: true, review: true, 'retry-policy': true, renewals: 'no' },",
        "    fencing: true, sagaStore: 'beside-the-run', takeover: 'queue', compensation: 'not yet', clock: 'server',",
        '  },',
        "  provision: async (request) => ({ locator: request.runId, env: {}, where: 'my server', teardown: async () => undefined }),",
        '  connect: async (locator) => connectToMyQueue(locator),',
        '};',
        'export default adapter;',
        'export const later: number = retryDelayMs(2, { baseMs: 100, capMs: 1000, jitterMs: 0 }, { next: () => 0 }) + utc(0).length;',
        "export const settle = (claim: Claim): Settlement => ({ kind: 'retry', error: 'attempt ' + String(claim.attempt) });",
        '// @ts-expect-error: soundness is one of three words',
        "export const wrong: QueueAdapter['soundness'] = 'fine';",
      ].join('\n'),
    );
    // The TypeScript adapter above, and the example's JavaScript, checked from its JSDoc types.
    const tsc = await typeCheck('tsconfig.adapter.json', ['my-adapter.ts', 'my-queue/adapter.js'], { allowJs: true, checkJs: true });
    expect(tsc.exitCode, tsc.stdout + tsc.stderr).toBe(0);
  });

  it('gives TypeScript its types: the options, the results and the errors type-check, and misuse does not', { timeout: 120_000 }, async () => {
    writeFileSync(
      join(project, 'uses-types.ts'),
      [
        "import { compare, type DrillReport, type DrillRun, type LoadedScenarios, loadScenarios, runDrill, ScenarioFileError, type ScenarioVerdict } from 'queue-drill';",
        "const loaded: LoadedScenarios = loadScenarios('scenarios.yaml', { only: ['crash-after-claim'] });",
        'export async function verdicts(): Promise<ScenarioVerdict[]> {',
        '  const run: DrillRun = await runDrill({ scenarios: loaded, seed: 1, parallel: 1, signal: AbortSignal.timeout(60_000) });',
        '  const report: DrillReport = run.report;',
        '  const code: 0 | 1 | 2 | 3 | 4 = run.exitCode;',
        '  const html: string = run.written.html + run.runDir + String(code);',
        '  // @ts-expect-error: a verdict is one of five words, not a number',
        '  const wrong: number = report.scenarios[0]!.verdict;',
        '  void html; void wrong;',
        '  return report.scenarios.map((s) => s.verdict);',
        '}',
        '// @ts-expect-error: the seed is a number',
        "void runDrill({ seed: 'one' });",
        "export const cells = compare({ queues: ['sqlite', 'postgres'] }).then((c) => c.report.cells.map((cell) => cell.verdict));",
        'export function lineOf(error: unknown): number | null | undefined {',
        '  return error instanceof ScenarioFileError ? error.issues[0]?.line : undefined;',
        '}',
      ].join('\n'),
    );
    const tsc = await typeCheck('tsconfig.json', ['uses-types.ts']);
    expect(tsc.exitCode, tsc.stdout + tsc.stderr).toBe(0);
  });
});
