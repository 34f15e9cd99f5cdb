import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { dropSchema } from '../../src/adapters/pg/provision.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { checkReport } from '../../src/report/schema.js';
import { PG_URL, skipWithoutPg } from '../helpers/postgres.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The `postgres` queue from the command line, on the real server: a drill in a
 * schema of its own (kept here with --keep, so the observe commands can read
 * it, then dropped), and a server that does not answer.
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
const cli = (args: string[], env: Record<string, string> = {}) =>
  execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true', ...env } });

let cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe('queue-drill with --queue postgres', () => {
  it('fails fast, in one line naming the server with its password hidden, exit 2, when the server does not answer', async () => {
    const out = tempRunDir('pg-unreachable');
    cleanup.push(out.remove);
    const result = await cli([
      'run',
      SMALL,
      '--only',
      'crash-after-claim',
      '--out',
      out.dir,
      '--queue',
      'postgres',
      '--pg-url',
      'postgres://drill:s3cret-pw@127.0.0.1:5999/postgres',
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^queue-drill: cannot connect to PostgreSQL at postgres:\/\/drill:\S+@127\.0\.0\.1:5999\/postgres: .*ECONNREFUSED.* \[QD_PG_UNREACHABLE\]$/,
      ),
    ]);
    expect(result.stderr).not.toContain('s3cret-pw');
    const status = await cli(['status', '--queue', 'postgres', '--store', 'qd_nothing_here'], {
      QD_PG_URL: 'postgres://drill:s3cret-pw@127.0.0.1:5999/postgres',
    });
    expect(status.exitCode).toBe(2);
    expect(status.stderr).toMatch(/cannot connect to PostgreSQL/);
    expect(status.stderr).not.toContain('s3cret-pw');
  });

  it.skipIf(skipWithoutPg('a drill on --queue postgres, read back by status and history (test/cli/postgres.test.ts)'))(
    'runs a drill in a schema of its own, which --keep leaves for status and history to read',
    async () => {
      const out = tempRunDir('pg-drill');
      cleanup.push(out.remove);
      const result = await cli(['run', SMALL, '--only', 'crash-after-claim', '--out', out.dir, '--queue', 'postgres', '--keep']);
      expect(result.exitCode, result.stderr).toBe(0);
      const checked = checkReport(JSON.parse(readFileSync(join(out.dir, 'latest', 'report.json'), 'utf8')));
      if (!checked.ok) throw new Error(JSON.stringify(checked.issues));
      const [scenario] = checked.report.scenarios;
      expect(scenario!.queue).toBe('postgres');
      expect(scenario!.queueVersion).toMatch(/PostgreSQL/);
      const schema = /schema (qd_[a-z0-9_]+)$/.exec(scenario!.artefacts.store)?.[1];
      expect(schema, scenario!.artefacts.store).toBeDefined();
      cleanup.push(() => dropSchema(PG_URL, schema!));

      const status = await cli(['status', '--queue', 'postgres', '--store', schema!, '--json']);
      expect(status.exitCode, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ jobs: scenario!.jobs.length, counts: { done: scenario!.jobs.length, running: 0 } });
      const killed = scenario!.recovery[0]!.jobId!;
      const history = await cli(['history', killed, '--queue', 'postgres', '--store', schema!]);
      expect(history.exitCode, history.stderr).toBe(0);
      expect(history.stdout).toMatch(new RegExp(`^job ${killed} \\(plan\\) key [0-9a-f]{16}…: done, attempt 2 of \\d+`));
      expect(history.stdout).toMatch(/running\s+-> retry .*lease of w\d+ expired/);
    },
  );
});
