import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CompareReportSchema } from '../../src/compare/schema.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { checkReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * `queue-drill compare` on real drills: two queues (the reference and the
 * queue sketch as written) on the scenario that tells them apart, then a
 * column whose server cannot be reached beside one that runs, held to an
 * expectations file. The drills are real; the unreachable PostgreSQL is a
 * closed port, so this needs no server.
 */

describe('queue-drill compare', () => {
  let cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup) step();
    cleanup = [];
  });
  const outDir = () => {
    const run = tempRunDir('compare');
    cleanup.push(run.remove);
    return run.dir;
  };
  const compare = (args: string[]) => execa(process.execPath, [CLI_PATH, 'compare', ...args], { reject: false, env: { CI: 'true', QD_PG_URL: '' } });
  const written = (out: string) => CompareReportSchema.parse(JSON.parse(readFileSync(join(out, 'latest', 'compare.json'), 'utf8')));

  it('writes one matrix of scenario × queue, each cell with its verdict and evidence, beside each column’s own drill report', {
    timeout: 60_000,
  }, async () => {
    const out = outDir();
    // What is known of the queue sketch goes in the file: without it, its failing cell makes the comparison exit 1.
    const expectations = join(out, 'expect.yaml');
    writeFileSync(expectations, "sketch-literal: { '*': fail }\n");
    const args = ['scenarios.yaml', '--queues', 'sqlite,sketch-literal', '--only', 'crash-after-claim', '--out', out];
    const result = await compare([...args, '--expect', expectations]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain('1 pass, 1 fail, 0 not judged, 0 not supported, 0 flaky; every cell as expected');
    const report = written(out);
    expect(report.queues.map((q) => q.queue)).toEqual(['sqlite', 'sketch-literal']);
    const [reference, sketch] = report.cells;
    expect(reference).toMatchObject({ scenario: 'crash-after-claim', queue: 'sqlite', verdict: 'pass', matched: true });
    expect(reference!.recoveryMs).toBeGreaterThan(0);
    expect(sketch).toMatchObject({ queue: 'sketch-literal', verdict: 'fail', matched: true });
    expect(sketch!.broken.map((b) => b.id)).toContain('lease-released');
    for (const column of report.queues) {
      const drill = checkReport(JSON.parse(readFileSync(column.report!, 'utf8')));
      expect(drill.ok).toBe(true);
    }
    const md = readFileSync(join(out, 'latest', 'compare.md'), 'utf8');
    expect(md).toMatch(/\| `crash-after-claim` \| ✅ pass · [\d.]+ s \| ❌ fail: .*`lease-released`/);
    const junit = readFileSync(join(out, 'latest', 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).toHaveLength(2);
    expect(junit).not.toContain('<failure');
    // compare.html beside it, each cell linked to its column's own report.html.
    expect(readFileSync(join(out, 'latest', 'compare.html'), 'utf8')).toMatch(
      /<a class="go" href="sketch-literal\/[^"/]+\/report\.html#scenario-1">/,
    );
  });

  it('reports a queue it cannot reach as its column’s error, runs the others, and exits 1 on a cell not as expected', {
    timeout: 60_000,
  }, async () => {
    const out = outDir();
    const expectations = join(out, 'expect.yaml');
    writeFileSync(expectations, "sketch-literal: { '*': pass }\n");
    const result = await compare([
      '--queues',
      'postgres,sketch-literal',
      '--only',
      'crash-after-claim',
      '--pg-url',
      'postgres://postgres@127.0.0.1:1/postgres',
      '--expect',
      expectations,
      '--out',
      out,
    ]);
    expect(result.exitCode, result.stderr).toBe(1);
    const report = written(out);
    const [postgres, sketch] = report.queues;
    expect(postgres!.error).toMatch(/PostgreSQL|127\.0\.0\.1:1/);
    expect(postgres!.needs).toEqual(['PostgreSQL at postgres://postgres@127.0.0.1:1/postgres']);
    expect(report.cells[0]).toMatchObject({ queue: 'postgres', verdict: 'error', matched: false, runDir: null });
    expect(sketch!.error).toBeNull();
    expect(report.cells[1]).toMatchObject({ queue: 'sketch-literal', verdict: 'fail', expected: ['pass'], matched: false });
    const junit = readFileSync(join(out, 'latest', 'junit.xml'), 'utf8');
    expect(junit.match(/<failure /g)).toHaveLength(2);
  });

  it('exits 1 when a column is not judged at all, and 0 once an --expect file says so', { timeout: 60_000 }, async () => {
    // PostgreSQL is never reached: a scenario that restarts the server is refused before anything runs without --restart-servers.
    const out = outDir();
    const args = ['--queues', 'postgres', '--only', 'queue-server-restart', '--pg-url', 'postgres://postgres@127.0.0.1:5432/postgres', '--out', out];
    const refused = await compare(args);
    if (/could not run/.test(refused.stderr)) return void console.warn('PostgreSQL not reachable, so skipped: a column not judged');
    expect(refused.exitCode, refused.stderr).toBe(1);
    expect(written(out).cells[0]).toMatchObject({ verdict: 'not_judged', matched: false });
    expect(refused.stderr).toContain('0 pass, 0 fail, 1 not judged');
    const expectations = join(out, 'expect.yaml');
    writeFileSync(expectations, "postgres: { '*': not_judged }\n");
    const known = await compare([...args, '--expect', expectations]);
    expect(known.exitCode, known.stderr).toBe(0);
  });

  it.each([
    { why: 'an unknown queue', args: ['--queues', 'sqlite,rabbit'], says: /unknown queue implementation "rabbit"/ },
    { why: 'a queue named twice', args: ['--queues', 'sqlite,sqlite'], says: /names a queue twice/ },
    { why: 'an unknown scenario', args: ['--queues', 'sqlite', '--only', 'nope'], says: /nope/ },
  ])('exits 2 before running anything on $why', async ({ args, says }) => {
    const out = outDir();
    const result = await compare([...args, '--out', out]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(says);
  });
});
