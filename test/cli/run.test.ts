import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { EVIDENCE_KINDS, INVARIANT_IDS } from '../../src/kernel/vocabulary.js';
import { checkReport, type DrillReport, REPORT_VERSION } from '../../src/report/schema.js';
import { isStopped, processesMentioning } from '../helpers/processes.js';
import { tempRunDir } from '../helpers/run-dir.js';

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';

/** The newest report.json under `out`, which must validate against the report schema. */
function latestReport(out: string): DrillReport {
  const checked = checkReport(JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')));
  if (!checked.ok) throw new Error(`report.json does not validate: ${JSON.stringify(checked.issues)}`);
  return checked.report;
}

describe('queue-drill run', () => {
  let cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });
  const outDir = () => {
    const run = tempRunDir('run');
    cleanup.push(run.remove);
    return run.dir;
  };
  const run = (args: string[]) => execa(process.execPath, [CLI_PATH, 'run', ...args], { reject: false, env: { CI: 'true' } });

  it.each([
    { queue: 'the reference queue (the default)', args: [] },
    { queue: '--queue sqlite (an alias of reference)', args: ['--queue', 'sqlite'] },
  ])('on $queue passes a drill whose fault fires, writes report.json (v2), report.md, junit.xml and points latest at them', async ({ args }) => {
    const out = outDir();
    const result = await run([SMALL, '--only', 'crash-after-claim', '--out', out, ...args]);
    expect(result.exitCode, result.stderr).toBe(0);
    const runDir = realpathSync(join(out, 'latest'));
    for (const file of ['report.json', 'report.md', 'junit.xml', 'report.schema.json']) expect(existsSync(join(runDir, file)), file).toBe(true);
    const report = latestReport(out);
    expect(report.version).toBe(REPORT_VERSION);
    // The reference queue gives every kind of evidence, so every invariant is judged.
    expect(report.summary).toEqual({
      scenarios: 1,
      passed: 1,
      failed: 0,
      vacuous: 0,
      inconclusive: 0,
      notJudged: 0,
      notSupported: 0,
      interrupted: 0,
      errors: 0,
      notStarted: 0,
      invariants: { held: INVARIANT_IDS.length, broken: 0, notJudged: 0 },
    });
    const [scenario] = report.scenarios;
    expect(scenario!.queueVersion).not.toBe('');
    expect(scenario!.available).toEqual(Object.fromEntries(EVIDENCE_KINDS.map((kind) => [kind, true])));
    expect(scenario!.invariants.every((v) => v.status === 'held')).toBe(true);
    expect(scenario!.faults[0]!.fired).toBe(1);
    expect(scenario!.recovery).toHaveLength(1);
    const [recovery] = scenario!.recovery;
    // The kill came first, then another claim took the job back, then it settled: in that order.
    expect(recovery).toMatchObject({ point: 'after_claim', reclaimedAt: expect.any(String), settledAt: expect.any(String) });
    const [killed, reclaimed, settled] = [recovery!.killedAt, recovery!.reclaimedAt!, recovery!.settledAt!].map(Date.parse);
    expect(killed, 'killed before it was reclaimed').toBeLessThan(reclaimed!);
    expect(reclaimed, 'reclaimed before it settled').toBeLessThanOrEqual(settled!);
    expect(recovery!.killToSettledMs).toBe(settled! - killed!);
    // Job ids are the queue's, as text; a kill's job is one of them.
    expect(scenario!.jobs.map((j) => typeof j.id)).toEqual(['string', 'string']);
    expect(scenario!.jobs.map((j) => j.id)).toContain(recovery!.jobId);
    expect(scenario!.jobs.every((j) => j.matches && j.located)).toBe(true);
    expect(result.stderr).toMatch(/PASS\s+crash-after-claim/);
    expect(result.stderr).toMatch(/1\/1 passed, 0 failed, 0 vacuous, 0 errors in [\d.]+s \(seed \d+\)\n/);
    expect(result.stderr).not.toMatch(/not judged/);
    expect(processesMentioning(out)).toEqual([]);
  });

  it('fails a drill whose armed fault never fired as vacuous, exit 1', async () => {
    const out = outDir();
    const result = await run([SMALL, '--only', 'never-fires', '--out', out]);
    expect(result.exitCode).toBe(1);
    const [scenario] = latestReport(out).scenarios;
    expect(scenario!.verdict).toBe('vacuous');
    expect(scenario!.unfired[0]).toMatch(/crash at after_write .* never fired/);
  });

  it('on the sketch-literal queue exits 1 naming the stuck job, and the printed replay gives the same verdict', async () => {
    const out = outDir();
    const first = await run([SMALL, '--only', 'crash-after-claim', '--out', out, '--queue', 'sketch-literal']);
    expect(first.exitCode).toBe(1);
    const [scenario] = latestReport(out).scenarios;
    expect(scenario!.verdict).toBe('fail');
    const broken = scenario!.invariants.filter((v) => v.status === 'broken').map((v) => v.id);
    expect(broken).toEqual(expect.arrayContaining(['no-lost-job', 'lease-released']));
    expect(scenario!.invariants.find((v) => v.id === 'lease-released')!.evidence.join('\n')).toMatch(/running at rest/);

    // As printed for someone in the repository (the tests' working directory); run here through the CLI's path.
    const replay = scenario!.replay.split(' ').slice(1);
    expect(scenario!.replay.split(' ').slice(0, 3)).toEqual(['npx', 'queue-drill', 'run']);
    expect(replay.slice(-2), 'the replay names what broke').toEqual(['--expect-broken', broken.join(',')]);
    const again = await execa(process.execPath, [CLI_PATH, ...replay.slice(1), '--out', out], { reject: false, env: { CI: 'true' } });
    expect(again.exitCode).toBe(1);
    const [replayed] = latestReport(out).scenarios;
    expect(replayed!.verdict).toBe('fail');
    expect(replayed!.invariants.filter((v) => v.status === 'broken').map((v) => v.id)).toEqual(broken);
    expect(replayed!.reproduction).toEqual({ expected: broken, broken, reproduced: true });
    expect(again.stderr).toContain(`reproduced: the same invariants broke (${broken.join(', ')})`);

    // The same replay on a sound queue breaks nothing, and says it did not reproduce.
    const sound = await execa(
      process.execPath,
      [CLI_PATH, ...replay.slice(1, replay.indexOf('--queue')), ...replay.slice(replay.indexOf('--queue') + 2), '--out', out],
      {
        reject: false,
        env: { CI: 'true' },
      },
    );
    expect(sound.exitCode, sound.stderr).toBe(0);
    expect(latestReport(out).scenarios[0]!.reproduction).toEqual({ expected: broken, broken: [], reproduced: false });
    expect(sound.stderr).toContain(`NOT reproduced: the run replayed broke ${broken.join(', ')}; this one broke nothing`);
  });

  it('exits 2 with the path and line of every problem in a bad scenarios file', async () => {
    const out = outDir();
    const file = join(out, 'bad.yaml');
    writeFileSync(
      file,
      'version: 1\nscenarios:\n  - name: x\n    description: y\n    jobs: [{ plan: nope, expect: done }]\n    faults: [{ at: after_lunch, action: crash }]\n',
    );
    const result = await run([file, '--out', out]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/bad\.yaml:6:\d+ scenarios\[0\]\.faults\[0\]/);
    expect(result.stderr).toMatch(/after_claim/);
  });

  it('exits 2 for an unknown --only name or --queue', async () => {
    const out = outDir();
    expect((await run([SMALL, '--only', 'nope', '--out', out])).stderr).toMatch(/no such scenario; the scenarios are: crash-after-claim/);
    const queue = await run([SMALL, '--queue', 'nope', '--out', out]);
    expect(queue.exitCode).toBe(2);
    // The list grows with the registry; it must name the queue to use and the others.
    const known = /unknown queue implementation "nope"; known: ([^\n[]+)/.exec(queue.stderr)?.[1]?.trim().split(', ');
    expect(known, queue.stderr).toEqual(expect.arrayContaining(['reference', 'sketch-literal']));
  });

  it('interrupted by SIGINT, stops every process of the drill, writes the report saying so in every view, exits 3', async () => {
    const out = outDir();
    // Three runs, one at a time: the first is interrupted in its long pause, the other two never start.
    const harness = execa(process.execPath, [CLI_PATH, 'run', SMALL, '--only', 'long-pause', '--repeat', '3', '--parallel', '1', '--out', out], {
      reject: false,
      env: { CI: 'true' },
    });
    // Should the test fail first: SIGINT, so the harness takes its drill's processes down with it.
    cleanup.push(() => (harness.exitCode === undefined && harness.kill('SIGINT') ? harness : undefined));
    // Interrupt while a worker is stopped in its long pause: seen from the process table, not guessed.
    await waitFor(() => processesMentioning(out).some(isStopped), {
      timeoutMs: 20_000,
      what: 'a drill process stopped by the pause',
    });
    harness.kill('SIGINT');
    const result = await harness;
    expect(result.exitCode).toBe(3);
    await waitFor(() => processesMentioning(out).length === 0, { timeoutMs: 5_000, what: 'every drill process to be gone' });
    const report = latestReport(out);
    // report.json: the half-run is interrupted, judged on nothing, and the runs never started are named.
    const [stopped] = report.scenarios;
    expect(report.scenarios).toHaveLength(1);
    expect(stopped).toMatchObject({ verdict: 'interrupted', error: null, expectations: [], unfired: [] });
    expect(stopped!.interrupted).toMatch(/^interrupted by SIGINT [\d.]+ s in, before the drill reached rest/);
    expect(stopped!.invariants.length).toBeGreaterThan(0);
    expect(stopped!.invariants.every((v) => v.status === 'not_judged')).toBe(true);
    expect(report.interruption).toEqual({
      by: 'SIGINT',
      notStarted: [
        { name: 'long-pause', repeat: 2, queue: 'reference' },
        { name: 'long-pause', repeat: 3, queue: 'reference' },
      ],
    });
    expect(report.summary).toMatchObject({ scenarios: 1, passed: 0, failed: 0, interrupted: 1, errors: 0, notStarted: 2 });
    // The console: the scenario's line and the summary say interrupted, and count what never started.
    expect(result.stderr).toMatch(/\[1\/3\] INTERRUPTED long-pause .*\n {8}not judged: interrupted by SIGINT/);
    expect(result.stderr).not.toMatch(/broke:|ended unexpectedly/);
    expect(result.stderr).toContain('interrupted by SIGINT: 1 scenario run stopped before rest (not judged), 2 never started\n');
    expect(result.stderr).toMatch(/\n0\/3 passed, 0 failed, 0 vacuous, 1 interrupted, 2 never started, 0 errors in /);
    // report.md, junit.xml and report.html say the same.
    const runDir = join(out, 'latest');
    const markdown = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(markdown).toContain('**⏹️ interrupted by SIGINT: 1 scenario run stopped before rest (not judged), 2 never started;');
    expect(markdown).toContain('- Never started (2): `long-pause (run 2)`, `long-pause (run 3)`');
    expect(markdown).not.toContain('Broken invariants');
    const junit = readFileSync(join(runDir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testsuites name="queue-drill" tests="3" failures="0" errors="1" skipped="2"/);
    expect(junit).toContain('<error message="interrupted, not judged: interrupted by SIGINT');
    expect(junit).toContain('<skipped message="never started: the drill was interrupted by SIGINT first"/>');
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html).toContain('interrupted by SIGINT: 1 scenario run stopped before rest (not judged), 2 never started');
    expect(html).toContain('<span class="verdict">NEVER STARTED</span>');
  });
});
