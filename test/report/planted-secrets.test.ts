import { existsSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { secretSpellings } from '../../src/kernel/redact.js';
import { checkReport, type DrillReport } from '../../src/report/schema.js';
import { PYTHON_EXAMPLE } from '../adapters/process/python.js';
import { PG_URL, skipWithoutPg } from '../helpers/postgres.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A secret planted in each input a drill takes is found in no file a CI recipe
 * (docs/ci/) uploads, by reading the recipes themselves: what each keeps of a
 * run directory (all of it, but what its exclusions leave out) and of a merged
 * one. The inputs: a server URL's password (--pg-url on a PostgreSQL drill, and
 * QD_PG_URL in the environment every drill process inherits), a `process:`
 * command's `key=value` and `--flag value`, a job's declared `secret:`, and a
 * step's args that look secret (a password, an sk_live_ key), quoted again by
 * an error the drill injects. Each is searched for in every spelling it takes
 * in stored text (as is, JSON-escaped, URL-encoded, and each of those base64-,
 * base64url- and hex-encoded: src/kernel/redact.ts), in text and binary files
 * alike (a SQLite file keeps text as UTF-8). And each is shown to have gone in
 * (the store the recipes leave out holds the payload's; the report's command
 * line and queue name say where they stood), so an absence proves something.
 */

/** The secrets, each a value no ordinary text holds. */
const PLANTED = {
  pgUrlFlag: 'pgFlagPw7Qx91zLm',
  pgUrlEnv: 'pgEnvPw3Kd82nVbT',
  commandKeyValue: 'kvTok5Tz04pQwRtA',
  commandFlag: 'flagTok8Rb66mYcQ',
  payloadPassword: 'payloadPw2Hn37sXe',
  payloadStripeKey: 'sk_live_51HxQplanted0000Key',
  declared: 'declared9Wc15kJfZ',
} as const;

type SecretName = keyof typeof PLANTED;

/** The secrets every drill here carries in its job. */
const IN_THE_JOB: SecretName[] = ['declared', 'payloadPassword', 'payloadStripeKey'];

const SCENARIOS = `version: 1
defaults: { lease_ms: 400, skew_margin_ms: 50, call_timeout_ms: 400, no_progress_ms: 10000, timeout_ms: 30000 }
scenarios:
  - name: planted
    description: A job carries a declared secret and args that look secret, and fails once with an error quoting them.
    coordinator: false
    jobs:
      - plan:
          steps:
            - step_id: write
              tool: write_file
              args: { path: a.txt, content: x, password: "${PLANTED.payloadPassword}", note: "${PLANTED.payloadStripeKey}" }
              has_side_effect: true
              idempotent: true
              reversible: true
              retry_policy: auto
              compensation: restore_file_version
              requires_approval: false
        secret: "${PLANTED.declared}"
        expect: done
    faults:
      - at: before_call
        action: error
        kind: transient
        message: "upstream refused api_key=${PLANTED.declared} password=${PLANTED.payloadPassword} note ${PLANTED.payloadStripeKey}"
        first: 1
`;

/** A server URL with this password in it (the one it has, if the server needs it: that is then the secret). */
function withPassword(url: string, password: string): { url: string; password: string } {
  const parsed = new URL(url);
  if (parsed.password !== '') return { url, password: decodeURIComponent(parsed.password) };
  parsed.password = password;
  return { url: parsed.toString(), password };
}

// --- What the recipes upload ---------------------------------------------------------------

/** A recipe's glob as a regular expression over a path relative to the directory it starts from. */
function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** One upload: the directory it starts from, what it keeps of it (nothing given: all of it) and what it leaves out. */
interface Upload {
  recipe: string;
  /** Which directory: a run's (the drill's or a shard's), or a merge's. */
  from: 'run' | 'merge';
  keep: RegExp[];
  leaveOut: RegExp[];
}

/** Every upload of docs/ci/github-actions.yml: a `path:` line is the directory a step wrote (`dir=`), or a file in it; `!` leaves out. */
function githubUploads(): Upload[] {
  const workflow = parse(readFileSync('docs/ci/github-actions.yml', 'utf8')) as {
    jobs: Record<string, { steps: Array<{ id?: string; uses?: string; run?: string; with?: { path?: string } }> }>;
  };
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  return steps
    .filter((step) => step.uses?.startsWith('actions/upload-artifact@'))
    .map((step) => {
      const upload: Upload = { recipe: 'github-actions.yml', from: 'run', keep: [], leaveOut: [] };
      for (const line of String(step.with?.path).trim().split('\n')) {
        const match = /^(!?)\$\{\{ steps\.([a-z]+)\.outputs\.dir \}\}(?:\/(.+))?$/.exec(line.trim());
        if (!match) throw new Error(`an upload path this test does not understand: ${line}`);
        const writer = steps.find((s) => s.id === match[2])!;
        upload.from = /queue-drill merge/.test(writer.run ?? '') ? 'merge' : 'run';
        const pattern = globToRegExp(match[3] ?? '**');
        (match[1] === '!' ? upload.leaveOut : upload.keep).push(pattern);
      }
      if (upload.keep.length === 0) upload.keep.push(/^/);
      return upload;
    });
}

/** The upload of docs/ci/gitlab-ci.yml: drill-report/ is a copy of the run directory; `exclude:` leaves out. */
function gitlabUploads(): Upload[] {
  const pipeline = parse(readFileSync('docs/ci/gitlab-ci.yml', 'utf8')) as Record<string, { artifacts: { paths: string[]; exclude?: string[] } }>;
  const { artifacts } = pipeline['queue-drill']!;
  const under = (path: string) => {
    const match = /^drill-report\/(.*)$/.exec(path);
    if (!match) throw new Error(`an artefact path this test does not understand: ${path}`);
    return globToRegExp(match[1] === '' ? '**' : match[1]!);
  };
  return [{ recipe: 'gitlab-ci.yml', from: 'run', keep: artifacts.paths.map(under), leaveOut: (artifacts.exclude ?? []).map(under) }];
}

const UPLOADS = [...githubUploads(), ...gitlabUploads()];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/** Each file some recipe uploads of these directories, with the recipes that do. */
function uploadedFiles(dirs: { run: string; merge?: string }): Map<string, string[]> {
  const files = new Map<string, string[]>();
  for (const upload of UPLOADS) {
    const dir = dirs[upload.from];
    if (dir === undefined) continue;
    for (const file of filesUnder(dir)) {
      const path = relative(dir, file);
      if (upload.keep.some((p) => p.test(path)) && !upload.leaveOut.some((p) => p.test(path)))
        files.set(file, [...(files.get(file) ?? []), upload.recipe]);
    }
  }
  return files;
}

/** "file: secret" for each of these secrets found in one of these files, in any spelling. */
function findings(files: Iterable<string>, secrets: Partial<Record<SecretName, string>>, base: string): string[] {
  const found: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const [name, secret] of Object.entries(secrets)) {
      if (secretSpellings(secret).some((spelling) => bytes.includes(spelling))) found.push(`${relative(base, file)}: ${name}`);
    }
  }
  return found.sort();
}

function readReportAt(dir: string): DrillReport {
  const checked = checkReport(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')));
  if (!checked.ok) throw new Error(`report.json does not validate: ${JSON.stringify(checked.issues)}`);
  return checked.report;
}

// --- The drills -----------------------------------------------------------------------------

let cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.reverse()) step();
  cleanup = [];
});

function tempDir(prefix: string): string {
  const temp = tempRunDir(prefix);
  cleanup.push(temp.remove);
  return temp.dir;
}

/** Runs the planted scenario with these arguments and environment; its run directory and report. */
async function drill(args: readonly string[], env: Record<string, string> = {}) {
  const out = tempDir('planted');
  const file = join(out, 'scenarios.yaml');
  writeFileSync(file, SCENARIOS);
  const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--only', 'planted', '--parallel', '1', '--out', out, ...args], {
    reject: false,
    env: { CI: 'true', ...env },
  });
  const output = `${result.stdout}\n${result.stderr}`;
  expect(existsSync(join(out, 'latest', 'report.json')), output).toBe(true);
  const runDir = realpathSync(join(out, 'latest'));
  const report = readReportAt(runDir);
  // The job ran (a worker read its payload, the injected error quoted it): the secrets had their chance to leak.
  expect(report.scenarios[0]!.jobs[0]!.attempts, output).toBeGreaterThan(0);
  return { out, runDir, report, output };
}

/** The store file a file-based queue leaves in the scenario's directory: it holds the payload as enqueued. */
function storeHolds(runDir: string, secrets: readonly SecretName[]): SecretName[] {
  const stores = filesUnder(runDir).filter((file) => /\/queue\.db$/.test(file));
  expect(stores.length).toBeGreaterThan(0);
  return secrets.filter((name) => stores.some((store) => readFileSync(store).includes(PLANTED[name])));
}

const pick = (names: readonly SecretName[], values: Partial<Record<SecretName, string>> = {}) =>
  Object.fromEntries(names.map((name) => [name, values[name] ?? PLANTED[name]])) as Partial<Record<SecretName, string>>;

describe('a secret planted in each input is in no file a CI recipe uploads', () => {
  it('finds the recipes it reads: a run directory uploaded whole but for its stores, and the merged report', () => {
    expect(UPLOADS.map((u) => `${u.recipe} ${u.from}`)).toEqual(['github-actions.yml run', 'github-actions.yml merge', 'gitlab-ci.yml run']);
  });

  it('on the reference queue, with a password in QD_PG_URL and QD_REDIS_URL that every drill process inherits, run as a shard and merged', {
    timeout: 180_000,
  }, async () => {
    const env = {
      QD_PG_URL: `postgres://postgres:${PLANTED.pgUrlEnv}@127.0.0.1:5432/postgres`,
      QD_REDIS_URL: `redis://:${PLANTED.pgUrlEnv}@127.0.0.1:6379`,
    };
    const { runDir } = await drill(['--shard', '1/1'], env);
    const merged = tempDir('planted-merged');
    const merging = await execa(process.execPath, [CLI_PATH, 'merge', runDir, '--out', merged], { reject: false, env: { CI: 'true', ...env } });
    expect(existsSync(join(merged, 'latest', 'report.json')), `${merging.stdout}\n${merging.stderr}`).toBe(true);
    const mergedDir = realpathSync(join(merged, 'latest'));
    expect(storeHolds(runDir, IN_THE_JOB)).toEqual(IN_THE_JOB);
    const files = uploadedFiles({ run: runDir, merge: mergedDir });
    expect([...files.keys()].some((file) => file.endsWith('/jobs.json'))).toBe(true);
    expect(findings(files.keys(), pick([...IN_THE_JOB, 'pgUrlEnv']), runDir)).toEqual([]);
  });

  it.skipIf(skipWithoutPg('the planted secrets on a PostgreSQL drill'))(
    'on PostgreSQL, the server named by --pg-url with a password',
    { timeout: 180_000 },
    async () => {
      const { url, password } = withPassword(PG_URL, PLANTED.pgUrlFlag);
      const { runDir, report, output } = await drill(['--queue', 'postgres', '--pg-url', url]);
      expect(report.command, output).toContain('--pg-url');
      expect(report.scenarios[0]!.verdict, output).not.toBe('error');
      expect(findings(uploadedFiles({ run: runDir }).keys(), pick([...IN_THE_JOB, 'pgUrlFlag'], { pgUrlFlag: password }), runDir)).toEqual([]);
    },
  );

  it.skipIf(skipWithoutPg('the planted secrets on a PostgreSQL drill'))(
    'on PostgreSQL, the server named by QD_PG_URL with a password',
    { timeout: 180_000 },
    async () => {
      const { url, password } = withPassword(PG_URL, PLANTED.pgUrlEnv);
      const { runDir, report, output } = await drill(['--queue', 'postgres'], { QD_PG_URL: url });
      expect(report.scenarios[0]!.verdict, output).not.toBe('error');
      expect(findings(uploadedFiles({ run: runDir }).keys(), pick([...IN_THE_JOB, 'pgUrlEnv'], { pgUrlEnv: password }), runDir)).toEqual([]);
    },
  );

  it('on a process: queue whose command line holds a key=value and a --flag value that name secrets', { timeout: 180_000 }, async () => {
    const queue = `process:${PYTHON_EXAMPLE} --auth-token ${PLANTED.commandFlag} api_token=${PLANTED.commandKeyValue}`;
    const { runDir, report, output } = await drill(['--queue', queue]);
    // Where they stood, redacted: the command line and the queue's name.
    expect(report.command, output).toContain('--auth-token [REDACTED] api_token=[REDACTED]');
    expect(report.scenarios[0]!.queue).toBe(`process:${PYTHON_EXAMPLE} --auth-token [REDACTED] api_token=[REDACTED]`);
    expect(storeHolds(runDir, IN_THE_JOB)).toEqual(IN_THE_JOB);
    const secrets = pick([...IN_THE_JOB, 'commandFlag', 'commandKeyValue']);
    expect(findings(uploadedFiles({ run: runDir }).keys(), secrets, runDir)).toEqual([]);
  });
});
