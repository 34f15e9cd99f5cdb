import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { reportFiles } from '../../src/report/write-report.js';

/*
 * The CI recipes the README shows (docs/ci/) are real files, held here to
 * what queue-drill is: every `queue-drill COMMAND --flag` they run is a
 * command the built CLI lists with a flag its --help lists, every file they
 * keep is one a run writes (the registered report views and their
 * companions), and their parts fit together (the shard matrix and --shard,
 * the artefact names the later steps download, the baseline file). Their
 * shell scripts must parse (bash -n). What cannot be run here is GitHub's and
 * GitLab's side.
 */

const GITHUB = 'docs/ci/github-actions.yml';
const GITLAB = 'docs/ci/gitlab-ci.yml';

/** The shipped scenarios as a project that installed queue-drill finds them: the package ships the file (package.json `files`). */
const SHIPPED_IN_PACKAGE = 'node_modules/queue-drill/scenarios.yaml';

interface Step {
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
}

/** A GitHub Actions expression, as a workflow writes it. */
function expression(inner: string): string {
  return `\${{ ${inner} }}`;
}

/** Every `queue-drill COMMAND ARGS` a script runs: its command and the flags it gives. */
function invocations(script: string): Array<{ command: string; flags: string[]; line: string }> {
  // A command continued on the next line (a backslash at the end) is one command.
  return [...script.replace(/\\\n\s*/g, ' ').matchAll(/\bqueue-drill +([a-z][a-z-]*)([^\n|;&]*)/g)].map((match) => ({
    command: match[1]!,
    flags: [...match[2]!.matchAll(/(?:^|\s)--([a-z][a-z0-9-]*)/g)].map((flag) => flag[1]!),
    line: match[0]!.trim(),
  }));
}

/** Whether a script parses as bash (GitHub's expressions stood in for by a word). */
async function bashParses(script: string): Promise<string> {
  const result = await execa('bash', ['-n'], { input: script.replace(/\$\{\{[^}]*\}\}/g, 'X'), reject: false });
  return result.exitCode === 0 ? 'ok' : result.stderr;
}

/** The CLI's commands, and the flags of those named in `wanted`, from the built CLI's own --help. */
async function cliCommands(wanted: readonly string[]): Promise<Map<string, Set<string>>> {
  const top = await execa(process.execPath, [CLI_PATH, '--help']);
  const names = [...top.stdout.matchAll(/^ {2}queue-drill ([a-z][a-z-]*)/gm)].map((match) => match[1]!);
  const commands = new Map<string, Set<string>>(names.map((name) => [name, new Set<string>()]));
  for (const name of names.filter((n) => wanted.includes(n))) {
    const help = await execa(process.execPath, [CLI_PATH, name, '--help']);
    commands.set(name, new Set([...help.stdout.matchAll(/^ {2}--([a-z][a-z0-9-]*)/gm)].map((match) => match[1]!)));
  }
  return commands;
}

/** Checks each invocation against the CLI; the problems, one line each. */
function unknownToCli(used: ReturnType<typeof invocations>, cli: Map<string, Set<string>>): string[] {
  return used.flatMap(({ command, flags, line }) => {
    const flagsOf = cli.get(command);
    if (flagsOf === undefined) return [`${line}: queue-drill has no command ${command}`];
    return flags.filter((flag) => !flagsOf.has(flag)).map((flag) => `${line}: queue-drill ${command} has no --${flag}`);
  });
}

describe('the CI recipes', () => {
  let cli: Map<string, Set<string>>;
  const views = reportFiles();
  beforeAll(async () => {
    const recipes = readFileSync(GITHUB, 'utf8') + readFileSync(GITLAB, 'utf8');
    cli = await cliCommands([...new Set(invocations(recipes).map((u) => u.command))]);
  }, 60_000);

  it('the CLI lists its commands and flags (what the rest is checked against), and the package ships its scenarios', () => {
    expect((JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] }).files).toContain('scenarios.yaml');
    expect(cli.get('run')).toContain('adapter');
    expect(cli.get('run')).toContain('out');
    expect(cli.get('run')).toContain('baseline');
    expect(cli.get('run')).toContain('shard');
    expect(cli.get('merge')).toContain('baseline');
    expect([...cli.keys()]).toEqual(expect.arrayContaining(['run', 'explore', 'compare', 'selftest']));
    expect(views).toEqual(expect.arrayContaining(['report.json', 'report.md', 'junit.xml', 'report.html']));
  });

  describe('GitHub Actions', () => {
    const workflow = parse(readFileSync(GITHUB, 'utf8')) as {
      on: Record<string, unknown>;
      permissions: Record<string, string>;
      jobs: Record<string, Job>;
    };
    const { drill, report } = workflow.jobs;
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const scripts = steps.filter((step) => step.run !== undefined).map((step) => step.run!);
    const uploads = steps.filter((step) => step.uses?.startsWith('actions/upload-artifact@'));

    it('runs on pushes to the default branch and on pull requests, and may read earlier runs (the baseline)', () => {
      expect(Object.keys(workflow.on)).toEqual(['push', 'pull_request']);
      expect(workflow.permissions).toEqual({ contents: 'read', actions: 'read' });
    });

    it('runs only commands and flags queue-drill has', () => {
      const used = scripts.flatMap(invocations);
      expect(used.map((u) => u.command)).toEqual(['run', 'merge']);
      expect(unknownToCli(used, cli)).toEqual([]);
    });

    it("drills the project's own queue, on the installed package's scenarios, with the servers it needs, at a scale fit for a shared runner", () => {
      const env = (workflow as unknown as { env: Record<string, string> }).env;
      expect(env.QUEUE_DRILL_ADAPTER).toMatch(/^\.\/.+\.js$/);
      expect(env.QUEUE_DRILL_SCENARIOS).toBe(SHIPPED_IN_PACKAGE);
      const run = invocations(scripts.join('\n')).find((u) => u.command === 'run')!;
      expect(run.line).toContain('run "$QUEUE_DRILL_SCENARIOS" --adapter "$QUEUE_DRILL_ADAPTER"');
      expect(run.line).toContain('--time-scale auto --retry-inconclusive 2');
      const services = (drill as unknown as { services: Record<string, { image: string; ports: string[] }> }).services;
      expect(Object.keys(services)).toEqual(['postgres', 'redis']);
      expect(services.postgres!.ports).toEqual(['5432:5432']);
      expect(services.redis!.ports).toEqual(['6379:6379']);
      expect((drill as unknown as { env: Record<string, string> }).env).toEqual({
        QD_PG_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
        QD_REDIS_URL: 'redis://127.0.0.1:6379',
      });
    });

    it('shell scripts that parse', async () => {
      expect(scripts.length).toBeGreaterThan(2);
      for (const script of scripts) expect(await bashParses(script), script).toBe('ok');
    });

    it('splits the drill into shards 1..n, each run with --shard i/n, none cancelled by another', () => {
      const shards = drill!.strategy?.matrix?.shard as number[];
      expect(shards).toEqual(Array.from({ length: shards.length }, (_, i) => i + 1));
      expect(shards.length).toBeGreaterThan(1);
      expect(scripts.join('\n')).toContain(`--shard ${expression('matrix.shard')}/${shards.length}`);
      expect(drill!.strategy).toMatchObject({ 'fail-fast': false });
    });

    it('keeps each shard, merges them after every shard, failed or not, and keeps the report', () => {
      const [shardUpload, reportUpload] = uploads;
      expect(uploads).toHaveLength(2);
      // Every upload happens whatever the drill's verdict: a failing drill's report is the one people need.
      for (const upload of uploads) expect(upload.if).toMatch(/^always\(\) && steps\.[a-z]+\.outputs\.dir != ''$/);
      expect(shardUpload!.with!.name).toBe(`drill-shard-${expression('matrix.shard')}`);
      expect(report!).toMatchObject({ needs: 'drill', if: 'always()' });
      const download = report!.steps.find((step) => step.uses?.startsWith('actions/download-artifact@'))!;
      expect(download.with).toEqual({ pattern: 'drill-shard-*', path: 'shards' });
      expect(scripts.join('\n')).toContain('queue-drill merge shards/drill-shard-*');
      expect(reportUpload!.with!.name).toBe('queue-drill-report');
    });

    it('uploads only run directories and files a run writes, report.html and junit.xml among them', () => {
      const paths = uploads.flatMap((upload) => String(upload.with!.path).trim().split('\n'));
      const files: string[] = [];
      for (const path of paths) {
        // A line that starts with ! leaves files out of the directory above it (a queue's store: test/report/planted-secrets.test.ts).
        const match = /^!?\$\{\{ steps\.([a-z]+)\.outputs\.dir \}\}(?:\/(.+))?$/.exec(path.trim());
        expect(match, path).not.toBeNull();
        // The step that names the directory runs queue-drill and writes `dir=` for its run directory.
        const step = steps.find((s) => s.id === match![1])!;
        expect(step.run).toMatch(/queue-drill (run|merge)/);
        expect(step.run).toContain('echo "dir=$(readlink -f drill-runs/latest)" >> "$GITHUB_OUTPUT"');
        if (match![2] !== undefined && !path.trim().startsWith('!')) files.push(match![2]);
      }
      expect(files.filter((file) => !views.includes(file))).toEqual([]);
      expect(files).toEqual(expect.arrayContaining(['report.html', 'junit.xml']));
    });

    it("compares the merged report with the default branch's last kept report, and merges without one when there is none", () => {
      const fetch = report!.steps.find((step) => step.run?.includes('gh run download'))!;
      expect(fetch.env).toMatchObject({ GH_TOKEN: expression('github.token'), DEFAULT_BRANCH: expression('github.event.repository.default_branch') });
      expect(fetch.run).toContain('--branch "$DEFAULT_BRANCH"');
      // The artefact the report job keeps, whose report.json (the JSON view's file) is the baseline.
      expect(fetch.run).toContain(`--name ${uploads[1]!.with!.name} --dir baseline`);
      expect(views).toContain('report.json');
      const merge = report!.steps.find((step) => step.id === 'merge')!;
      expect(merge.run).toContain('if [ -f baseline/report.json ]; then baseline=(--baseline baseline/report.json); fi');
      expect(merge.run).toMatch(/queue-drill merge .* "\$\{baseline\[@\]\}"/);
      expect(report!.steps.indexOf(fetch)).toBeLessThan(report!.steps.indexOf(merge));
      // A shard is a share of the drill, not the drill: the baseline is the whole drill's, given to merge only.
      expect(drill!.steps.some((step) => step.run?.includes('--baseline'))).toBe(false);
    });
  });

  describe('GitLab CI', () => {
    const pipeline = parse(readFileSync(GITLAB, 'utf8')) as Record<
      string,
      { script: string[]; artifacts: { when: string; paths: string[]; reports: { junit: string } } }
    >;
    const job = pipeline['queue-drill']!;
    const script = job.script.join('\n');

    it('runs only commands and flags queue-drill has', () => {
      const used = invocations(script);
      expect(used.map((u) => u.command)).toEqual(['run']);
      expect(unknownToCli(used, cli)).toEqual([]);
    });

    it('a shell script that parses', async () => {
      expect(await bashParses(script)).toBe('ok');
    });

    it("drills the project's own queue, on the installed package's scenarios, with the servers it needs, at a scale fit for a shared runner", () => {
      const { variables, services } = job as unknown as { variables: Record<string, string>; services: Array<{ name: string; alias: string }> };
      expect(variables.QUEUE_DRILL_ADAPTER).toMatch(/^\.\/.+\.js$/);
      expect(variables.QUEUE_DRILL_SCENARIOS).toBe(SHIPPED_IN_PACKAGE);
      const [run] = invocations(script);
      expect(run!.line).toContain('run "$QUEUE_DRILL_SCENARIOS" --adapter "$QUEUE_DRILL_ADAPTER"');
      expect(run!.line).toContain('--time-scale auto --retry-inconclusive 2');
      expect(services).toEqual([
        { name: 'postgres:15', alias: 'postgres' },
        { name: 'redis:7', alias: 'redis' },
      ]);
      expect(variables).toMatchObject({ QD_PG_URL: 'postgres://postgres@postgres:5432/postgres', QD_REDIS_URL: 'redis://redis:6379' });
    });

    it("keeps the run directory and shows its junit.xml as the pipeline's test report, whatever the verdict", () => {
      expect(job.artifacts.when).toBe('always');
      expect(job.artifacts.paths).toEqual(['drill-report/']);
      expect(script).toContain('cp -RL drill-runs/latest drill-report');
      const junit = /^drill-report\/(.+)$/.exec(job.artifacts.reports.junit)?.[1];
      expect(junit).toBe('junit.xml');
      expect(views).toContain(junit);
    });
  });
});
