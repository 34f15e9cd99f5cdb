import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { compare, OptionsError, runDrill, SHIPPED_SCENARIOS } from '../../src/api/index.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * A user's own adapter module, named by its path: the example queue
 * (examples/js-queue/adapter.js), as `--adapter` on the command line and
 * `adapter` in the library. (Installed from the packed package into a project
 * of its own: test/selftest/packed-api.test.ts.)
 */

const EXAMPLE = 'examples/js-queue/adapter.js';
const run = tempRunDir('adapter-flag');
afterAll(() => run.remove());

describe('--adapter', () => {
  it('runs the contract on the module: every check passes on the example queue', { timeout: 60_000 }, async () => {
    const result = await execa(process.execPath, [CLI_PATH, 'contract', '--adapter', EXAMPLE, '--json'], { reject: false });
    expect(result.exitCode, result.stderr).toBe(0);
    const { queue, results } = JSON.parse(result.stdout) as { queue: string; results: Array<{ id: string; status: string }> };
    expect(queue).toBe(`adapter:${resolve(EXAMPLE)}`);
    expect(results.map((r) => r.status)).toEqual(results.map(() => 'passed'));
    expect(results.length).toBeGreaterThanOrEqual(6);
  });

  it('is refused with --queue beside it, and for a path that holds no adapter, before anything runs (exit 2)', { timeout: 30_000 }, async () => {
    const both = await execa(process.execPath, [CLI_PATH, 'run', '--adapter', EXAMPLE, '--queue', 'sqlite', '--out', run.dir], { reject: false });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain('give one (--adapter PATH is --queue adapter:PATH)');
    const missing = await execa(process.execPath, [CLI_PATH, 'run', '--adapter', './nowhere.js', '--out', run.dir], { reject: false });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`adapter:${resolve('nowhere.js')}: no such file`);
    const notOne = await execa(process.execPath, [CLI_PATH, 'run', '--adapter', 'examples/js-queue/lock.js', '--out', run.dir], { reject: false });
    expect(notOne.exitCode).toBe(2);
    expect(notOne.stderr).toContain('is not a queue adapter: its default export is undefined, not an object');
  });
});

describe('the library', () => {
  it('runDrill({ adapter }) drills the module in every process of the drill', { timeout: 60_000 }, async () => {
    const drill = await runDrill({ scenarios: SHIPPED_SCENARIOS, only: ['max-retries'], adapter: EXAMPLE, out: run.dir, parallel: 1, timeScale: 1 });
    expect(drill.report.scenarios.map((s) => [s.name, s.verdict, s.queue])).toEqual([['max-retries', 'pass', `adapter:${resolve(EXAMPLE)}`]]);
    expect(drill.exitCode).toBe(0);
    // The replay names the module by the path every process imported it from.
    expect(readFileSync(drill.written.markdown, 'utf8')).toContain(`--queue adapter:${resolve(EXAMPLE)}`);
  });

  it('refuses queue and adapter together, and compare takes adapter:PATH among its queues', async () => {
    await expect(runDrill({ queue: 'sqlite', adapter: EXAMPLE })).rejects.toThrow(OptionsError);
    await expect(compare({ queues: ['sqlite', 'adapter:./nowhere.js'] })).rejects.toThrow(/no such file/);
  });
});
