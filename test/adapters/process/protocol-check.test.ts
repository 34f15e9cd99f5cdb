import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { joinWords } from '../../../src/cli/command.js';
import { runProtocolCheck } from '../../../src/contract/protocol/run-protocol-check.js';
import { CLI_PATH } from '../../../src/harness/cli-path.js';
import { processesMentioning } from '../../helpers/processes.js';
import { brokenFixture, PYTHON_EXAMPLE } from './python.js';

/*
 * protocol-check against real children: the Python example passes every
 * step; each deliberately broken variant fails, and the failure names the
 * protocol message at fault (a checker that cannot fail proves nothing).
 */

/** A child that never answers (it exits when its stdin closes); the marker finds any left behind. */
const SILENT = joinWords([process.execPath, '-e', 'process.stdin.resume() // protocol-check-silent-child']);

describe('protocol-check', () => {
  it('passes every step on the Python example, in protocol 2', { timeout: 120_000 }, async () => {
    const results = await runProtocolCheck(PYTHON_EXAMPLE);
    expect(results.filter((r) => r.status !== 'pass')).toEqual([]);
    expect(results.map((r) => r.name)).toEqual(expect.arrayContaining(['stale-write-refused', 'provision-isolated', 'teardown', 'fit']));
  });

  it("passes the Python example speaking protocol 1, skipping protocol 2's steps", { timeout: 120_000 }, async () => {
    const results = await runProtocolCheck(`${PYTHON_EXAMPLE} --protocol 1`);
    expect(results.filter((r) => r.status === 'fail')).toEqual([]);
    expect(results.filter((r) => r.status === 'skip').map((r) => [r.name, r.detail])).toEqual(
      ['provision-isolated', 'teardown', 'fit'].map((name) => [name, "the child speaks protocol 1; this is protocol 2's"]),
    );
  });

  it.each([
    { fixture: 'stale-write-accepted', step: 'stale-write-refused', about: 'settle', why: /answered ok .*expected fail lease_lost/ },
    { fixture: 'refusal-not-recorded', step: 'stale-write-refused', about: 'snapshot', why: /no refused entry under epoch/ },
    { fixture: 'log-to-stdout', step: 'deliver', about: 'stdout', why: /a line on stdout that is not JSON: "INFO claimed/ },
    { fixture: 'no-dedupe', step: 'enqueue-dedupe', about: 'enqueue', why: /answered .*created.*expected deduplicated/ },
    { fixture: 'ignores-stdin-close', step: 'exit-on-stdin-close', about: 'stdin', why: /still running 2 s after its stdin closed/ },
    // The schema of every answer (protocol.schema.json) comes first: a state outside the judge's six, named by its path.
    {
      fixture: 'bad-snapshot-status',
      step: 'snapshot',
      about: 'snapshot',
      why: /^snapshot\.jobs\[0\]\.status: expected one of pending, running, .*got "finished"/,
    },
    // Protocol 2's: a queue shared between drills, one never removed, a drill accepted that the queue cannot run, an op missing.
    { fixture: 'same-locator', step: 'provision-isolated', about: 'provision', why: /two provisions for two runs gave one locator/ },
    { fixture: 'teardown-keeps-everything', step: 'teardown', about: 'teardown', why: /is still there after teardown/ },
    { fixture: 'fit-accepts-anything', step: 'fit', about: 'fit', why: /a lease of 49 ms, below the hello's min_lease_ms of 50, was accepted/ },
    { fixture: 'protocol-2-without-teardown', step: 'hello', about: 'hello', why: /lacks teardown, which a protocol 2 child must answer/ },
  ])('fails $fixture at $step, naming $about', { timeout: 120_000 }, async ({ fixture, step, about, why }) => {
    const results = await runProtocolCheck(brokenFixture(fixture), { only: [step] });
    const failed = results.find((r) => r.name === step);
    expect(failed, JSON.stringify(results)).toMatchObject({ status: 'fail', about, detail: expect.stringMatching(why) });
  });

  it('waits the scaled answer timeout for the hello, and names it', { timeout: 60_000 }, async () => {
    const started = performance.now();
    const results = await runProtocolCheck(SILENT, { only: ['deliver'], timeScale: 1.2 });
    expect(results).toMatchObject([
      { name: 'hello', status: 'fail', about: 'hello', detail: expect.stringMatching(/gave no answer within 6000 ms \[no_answer\]/) },
      { name: 'deliver', status: 'skip' },
    ]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(5_990);
    expect(processesMentioning('protocol-check-silent-child'), 'no child left').toEqual([]);
  });
});

/** Runs the built CLI's protocol-check with `args`, never throwing on its exit code. */
const protocolCheck = (...args: string[]) => execa(process.execPath, [CLI_PATH, 'protocol-check', ...args], { reject: false });

describe('queue-drill protocol-check of a program that is not there', () => {
  it('is bad input, exit 2, one line naming it, before any step or measurement', async () => {
    const run = await protocolCheck('nonexistent-cmd');
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^queue-drill: no program nonexistent-cmd on the PATH: .* \[QD_BAD_PROCESS_COMMAND\]$/),
    ]);
    expect(run.stdout).toBe('');
  });
});

describe('queue-drill protocol-check --time-scale', () => {
  it.each(['fast', '0', '101', ''])('refuses %j with exit 2, naming the flag', async (scale) => {
    const run = await protocolCheck('--time-scale', scale, 'python3', 'q.py');
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/--time-scale must be auto or a number from 0\.1 to 100/);
    expect(run.stdout).toBe('');
  });

  it('states the scale given on its first line (stderr), and in --json', { timeout: 60_000 }, async () => {
    const child = ['--only', 'hello', '--', ...PYTHON_EXAMPLE.split(' ')];
    const text = await protocolCheck('--time-scale', '2', ...child);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stderr.split('\n')[0]).toBe('time scale ×2 (given): each answer and delivery is waited for up to 10000 ms');
    expect(text.stdout).toMatch(/^PASS {2}hello/m);
    const json = await protocolCheck('--time-scale', '0.5', '--json', ...child);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(json.stderr, 'nothing but JSON, on stdout').toBe('');
    expect(JSON.parse(json.stdout)).toMatchObject({
      timeScale: 0.5,
      calibration: null,
      answerTimeoutMs: 5_000,
      results: [{ name: 'hello', status: 'pass' }],
    });
  });
});
