import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compare, EXIT, InputError, loadScenarios, OptionsError, runDrill, ScenarioFileError, SHIPPED_SCENARIOS } from '../../src/api/index.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { isStopped, processesMentioning } from '../helpers/processes.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The library, called as a user's test suite calls it (from src here; the
 * packed package, installed the way a user installs it, is
 * test/selftest/packed-api.test.ts): loadScenarios refusing bad input with a
 * typed error that has the file and line, runDrill and compare on real
 * processes with scenarios loaded once, an AbortSignal stopping a drill and
 * its processes, and options checked before anything runs.
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
const run = tempRunDir('api');
afterAll(() => run.remove());

describe('loadScenarios', () => {
  it('loads the shipped scenarios, every one resolved', () => {
    const loaded = loadScenarios(SHIPPED_SCENARIOS);
    expect(loaded.path).toBe(SHIPPED_SCENARIOS);
    expect(loaded.names).toContain('crash-after-claim');
    expect(loaded.scenarios.map((s) => s.name)).toEqual(loaded.names);
    expect(loaded.names.length).toBeGreaterThan(30);
  });

  it('selects by name and resolves for a queue', () => {
    const loaded = loadScenarios(SMALL, { only: ['never-fires', 'crash-after-claim'], queue: 'sketch-literal' });
    // The file's order, whatever the order asked.
    expect(loaded.names).toEqual(['crash-after-claim', 'never-fires']);
    expect(loaded.scenarios.map((s) => s.queue)).toEqual(['sketch-literal', 'sketch-literal']);
    expect(loaded.queue).toBe('sketch-literal');
    // Resolved: the file's two write-file jobs with their keys, its crash at a named point, the invariants it is judged by.
    const [crash] = loaded.scenarios;
    expect(crash!.jobs).toEqual([
      { key: expect.stringMatching(/^[0-9a-f]{64}$/), maxAttempts: expect.any(Number), expect: { status: 'done' } },
      { key: expect.stringMatching(/^[0-9a-f]{64}$/), maxAttempts: expect.any(Number), expect: { status: 'done' } },
    ]);
    expect(crash!.faults).toEqual([{ id: 'f1', at: 'after_claim', action: 'crash' }]);
    expect(crash!.invariants).toContain('no-lost-job');
  });

  it('throws ScenarioFileError with the file, line and column of every problem', () => {
    const file = join(run.dir, 'bad.yaml');
    writeFileSync(file, 'version: 1\nscenarios:\n  - name: x\n    jobs: [{ plan: nowhere, expect: done }]\n    workers: many\n');
    let caught: unknown;
    try {
      loadScenarios(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ScenarioFileError);
    const error = caught as ScenarioFileError;
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ code: 'QD_BAD_SCENARIOS', exitCode: EXIT.badInput, source: file });
    expect(error.issues).toContainEqual(expect.objectContaining({ path: 'scenarios[0].workers', line: 5, column: expect.any(Number) }));
    expect(error.message).toContain(`${file}:5:`);
  });

  it('throws ScenarioFileError for a file that is not there, and an InputError for a scenario or queue that is not', () => {
    expect(() => loadScenarios(join(run.dir, 'missing.yaml'))).toThrow(ScenarioFileError);
    expect(() => loadScenarios(SMALL, { only: ['no-such'] })).toThrow(/no-such: no such scenario/);
    expect(() => loadScenarios(SMALL, { queue: 'nope' })).toThrow(InputError);
    expect(() => loadScenarios(SMALL, { seed: 1.5 })).toThrow(new OptionsError('loadScenarios: seed must be an integer, got 1.5'));
  });
});

describe('runDrill', () => {
  it('runs loaded scenarios on real processes: the report, its files, the exit code the CLI would give', { timeout: 90_000 }, async () => {
    const out = join(run.dir, 'drill');
    const loaded = loadScenarios(SMALL, { only: ['crash-after-claim'], queue: 'sketch-literal' });
    const seen: string[] = [];
    const drill = await runDrill({ scenarios: loaded, seed: 5, parallel: 1, out, onScenario: (event) => seen.push(event.phase) });
    expect(drill.exitCode).toBe(EXIT.violated);
    expect(drill.report.exitCode).toBe(drill.exitCode);
    expect(drill.report.scenarios.map((s) => [s.name, s.verdict, s.queue])).toEqual([['crash-after-claim', 'fail', 'sketch-literal']]);
    expect(drill.report.scenarios[0]!.invariants.filter((v) => v.status === 'broken').map((v) => v.id)).toContain('no-lost-job');
    expect(seen).toEqual(['start', 'done']);
    // Written where it says, as the CLI writes it: every view, and latest pointing at the run.
    expect(Object.keys(drill.written)).toEqual(['json', 'markdown', 'junit', 'html']);
    for (const file of Object.values(drill.written)) expect(file.startsWith(`${drill.runDir}/`) && existsSync(file), file).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8'))).toEqual(drill.report);
    // The command line that runs the same drill, and the replay naming the file as given, each as a person pastes it here (in the clone: npx).
    expect(drill.report.command).toBe(
      `npx queue-drill run ${SMALL} --only crash-after-claim --seed 5 --queue sketch-literal --parallel 1 --out ${out}`,
    );
    expect(drill.report.scenarios[0]!.replay).toMatch(
      new RegExp(`^npx queue-drill run ${SMALL} --only crash-after-claim --seed 5 --queue sketch-literal`),
    );
  });

  it('stops when its AbortSignal aborts: every process gone, the report says interrupted, exit code 3', { timeout: 60_000 }, async () => {
    const out = join(run.dir, 'aborted');
    const controller = new AbortController();
    const drill = runDrill({ scenarios: SMALL, only: ['long-pause'], parallel: 1, out, signal: controller.signal });
    // Abort while a worker is stopped in its 60 s pause: seen from the process table, not guessed.
    await waitFor(() => processesMentioning(out).some(isStopped), { timeoutMs: 20_000, what: 'a drill process stopped by the pause' });
    const abortedAt = Date.now();
    controller.abort();
    const { exitCode, report } = await drill;
    expect(exitCode).toBe(EXIT.harnessFailed);
    expect(Date.now() - abortedAt).toBeLessThan(20_000);
    expect(report.scenarios[0]!.verdict).toBe('interrupted');
    expect(report.scenarios[0]!.interrupted).toMatch(/interrupted/);
    expect(report.interruption?.by).toBeDefined();
    await waitFor(() => processesMentioning(out).length === 0, { timeoutMs: 5_000, what: 'every drill process to be gone' });
  });

  it('refuses options that make no sense before anything runs', async () => {
    const out = join(run.dir, 'never');
    await expect(runDrill({ scenarios: SMALL, out, parallel: 0 })).rejects.toThrow(
      new OptionsError('runDrill: parallel must be a whole number from 1, got 0'),
    );
    await expect(runDrill({ scenarios: SMALL, out, parallel: 17 })).rejects.toThrow(/parallel must be a whole number from 1 to 16, got 17/);
    await expect(runDrill({ scenarios: SMALL, out, timeScale: 0 })).rejects.toThrow(/timeScale must be from 0.1 to 100/);
    await expect(runDrill({ scenarios: SMALL, out, expectBroken: ['no-such' as never] })).rejects.toThrow(/unknown invariant no-such/);
    await expect(runDrill({ scenarios: SMALL, out, queue: 'nope' })).rejects.toThrow(InputError);
    await expect(runDrill({ scenarios: SMALL, out, baseline: join(run.dir, 'no-baseline') })).rejects.toThrow(InputError);
    await expect(runDrill({ scenarios: join(run.dir, 'missing.yaml'), out })).rejects.toThrow(ScenarioFileError);
    // Scenarios are a path or what loadScenarios returned, never a look-alike made by hand.
    const lookalike = { ...loadScenarios(SMALL) };
    await expect(runDrill({ scenarios: lookalike, out })).rejects.toThrow(
      new OptionsError('runDrill: scenarios must be a path or what loadScenarios returned'),
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe('compare', () => {
  it('runs the same scenario on several queues as one matrix, a failing cell not as expected by default', { timeout: 120_000 }, async () => {
    const out = join(run.dir, 'compare');
    const result = await compare({
      queues: ['sqlite', 'sketch-literal'],
      scenarios: loadScenarios(SMALL, { only: ['crash-after-claim'] }),
      parallel: 1,
      out,
    });
    // Without an expectations file, a cell is expected to pass: the queue sketch's failure makes the comparison fail.
    expect(result.exitCode).toBe(EXIT.violated);
    expect(result.report.cells.map((c) => [c.queue, c.scenario, c.verdict, c.matched])).toEqual([
      ['sqlite', 'crash-after-claim', 'pass', true],
      ['sketch-literal', 'crash-after-claim', 'fail', false],
    ]);
    expect(Object.values(result.written).every((file) => file.startsWith(`${result.dir}/`) && existsSync(file))).toBe(true);
    expect(result.report.command).toBe(`npx queue-drill compare ${SMALL} --queues sqlite,sketch-literal --seed 1 --only crash-after-claim`);
  });

  it('refuses no queue, a queue twice, or an unknown one, before any runs', async () => {
    await expect(compare({ queues: [], scenarios: SMALL })).rejects.toThrow(/queues names no queue/);
    await expect(compare({ queues: ['sqlite', 'sqlite'], scenarios: SMALL })).rejects.toThrow(/names a queue twice/);
    await expect(compare({ queues: ['nope'], scenarios: SMALL })).rejects.toThrow(InputError);
  });
});
