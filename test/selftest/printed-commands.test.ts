import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import type { DrillReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * Every command queue-drill prints for a person, pasted as printed into a
 * shell in the repository after the build, as someone who ran `npm ci && npm
 * run drill` in a clone would: the replay of a failing scenario, the approval
 * a waiting job needs, the history of a job. Each must work, not exit 127
 * for a `queue-drill` nobody put on the PATH.
 *
 * The shell gets an npm cache of its own, empty, and npm offline: `npx
 * queue-drill` must find the clone's own bin without the network or a cache
 * filled before. The only thing added to a pasted command is where a drill
 * writes (--out), so the tests write nothing into the repository.
 */

const REPO = resolve(import.meta.dirname, '..', '..');
const dir = tempRunDir('printed');
const cache = join(dir.dir, 'npm-cache');

beforeAll(() => mkdirSync(cache));
afterAll(() => dir.remove());

/** queue-drill as the drill's own runs start it: from the repository, its output in the temp folder. */
const drill = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { cwd: REPO, reject: false, env: { CI: 'true' } });

/** A printed command pasted into bash in the repository (with `extra` words after it). */
const paste = (command: string, extra = '') =>
  execa('bash', ['-c', `${command}${extra}`], { cwd: REPO, reject: false, env: { CI: 'true', npm_config_cache: cache, npm_config_offline: 'true' } });

/** The one line of `text` that starts (after spaces) with `label: `, its rest. */
function printed(text: string, label: string): string {
  const lines = [...text.matchAll(new RegExp(`^\\s*${label}: (.*)$`, 'gm'))].map((m) => m[1]!);
  expect(lines, `one ${label} line in:\n${text}`).toHaveLength(1);
  return lines[0]!;
}

describe('the commands queue-drill prints, pasted as printed', () => {
  it('a failing scenario’s replay runs it again and reproduces it; the report, report.md and junit.xml print the same', {
    timeout: 240_000,
  }, async () => {
    const out = join(dir.dir, 'failing');
    const failed = await drill(['run', '--queue', 'sketch-literal', '--only', 'crash-after-claim', '--out', out]);
    expect(failed.exitCode, failed.stderr).toBe(1);
    const replay = printed(failed.stderr, 'replay');
    expect(replay).toMatch(/^npx queue-drill run scenarios\.yaml --only crash-after-claim --seed 1 --queue sketch-literal --expect-broken [a-z,-]+$/);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as DrillReport;
    expect(report.scenarios[0]!.replay).toBe(replay);
    expect(readFileSync(join(out, 'latest', 'report.md'), 'utf8')).toContain(`\n${replay}\n`);
    expect(readFileSync(join(out, 'latest', 'junit.xml'), 'utf8')).toContain(`replay: ${replay}`);

    const again = await paste(replay, ` --out ${join(dir.dir, 'replayed')}`);
    expect(again.exitCode, again.stderr).toBe(1);
    expect(again.stderr).toContain('reproduced: the same invariants broke');
  });

  it('the approval a waiting job needs, from the report and from status, approves it; the history commands print the job', {
    timeout: 240_000,
  }, async () => {
    const out = join(dir.dir, 'approval');
    const ran = await drill(['run', '--only', 'approval-required', '--out', out]);
    expect(ran.exitCode, ran.stderr).toBe(0);
    // The run directory by its own name, as the report names it.
    const runDir = join(realpathSync(join(out, 'latest')), 'approval-required');
    const store = join(runDir, 'queue.db');
    const ledger = join(runDir, 'ledger.db');

    // status, as someone who looks at the drill's store would run it.
    const status = await drill(['status', '--store', store]);
    expect(status.exitCode, status.stderr).toBe(0);
    const approve = printed(status.stdout, 'approve');
    expect(approve).toBe(`npx queue-drill approve 1 --store ${store}`);
    expect(readFileSync(join(out, 'latest', 'report.md'), 'utf8')).toContain(
      `- Job \`1\` waits for a person's approval; to approve it: \`${approve}\`\n`,
    );
    const history = printed(status.stdout, 'history');
    expect(history).toBe(`npx queue-drill history 1 --store ${store} --ledger ${ledger}`);

    // history without --ledger says the effects are left out, and how to include them.
    const bare = await drill(['history', '1', '--store', store]);
    expect(bare.exitCode, bare.stderr).toBe(0);
    expect(bare.stdout).toContain('effects in the world: left out (no --ledger); to include them: ');
    expect(bare.stdout).toContain(`  approve: ${approve}\n`);
    expect(/to include them: (.*)$/m.exec(bare.stdout)![1]).toBe(history);

    const approved = await paste(approve);
    expect(approved.exitCode, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toMatchObject({ event: 'approved', job: '1', step: 'charge' });

    const shown = await paste(history);
    expect(shown.exitCode, shown.stderr).toBe(0);
    // The approval grants the run it resumes on top of the job's three attempts.
    expect(shown.stdout).toMatch(/^job 1 \(plan\) key [0-9a-f]{16}…: pending, attempt 1 of 4$/m);
    expect(shown.stdout).toMatch(/step {4}charge {7}approve {4}success/);
    expect(shown.stdout, 'with the ledger, nothing is said to be left out').not.toContain('left out');
  });
});
