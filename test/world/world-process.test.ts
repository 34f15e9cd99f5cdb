import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { waitFor } from '../../src/harness/wait-for.js';
import { UnknownOutcomeError } from '../../src/kernel/job-errors.js';
import { WorldClient } from '../../src/world/client.js';
import { readFaults } from '../../src/world/faults.js';
import { readCalls, readLedger } from '../../src/world/ledger.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * The world as real processes running the compiled JS (npm run build first):
 * SIGTERM and SIGKILL, a restart on the same ledger, and several world
 * processes racing on one ledger file, where the immediate transaction and
 * the UNIQUE index, not one process's event loop, must keep keyed calls once.
 */

const DIST_WORLD = join(CLI_PATH, '..', '..', 'world');
const RUN_WORLD_JS = join(DIST_WORLD, 'run-world.js');
const CLIENT_JS = join(DIST_WORLD, 'client.js');
const CLOCK_JS = join(CLI_PATH, '..', '..', 'kernel', 'clock.js');

interface WorldProcess {
  child: ChildProcess;
  port: number;
  pid: number;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const META = { job: 1, step: 'charge', attempt: 1, worker: 'w1', pid: 1 };

describe('the world as real processes', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  /** Starts a process and resolves once it printed its listening line. */
  async function start(args: string[], env: Record<string, string> = {}): Promise<WorldProcess> {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    cleanup.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const lines = createInterface({ input: child.stdout! });
    const listening = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line within 10 s; stderr: ${stderr}`)), 10_000);
      lines.once('line', (line) => {
        clearTimeout(timer);
        const parsed = JSON.parse(line) as { event: string; port: number; pid: number };
        if (parsed.event !== 'listening') reject(new Error(`first line is not the listening line: ${line}`));
        resolve(parsed);
      });
      void exited.then(() => reject(new Error(`exited before listening; stderr: ${stderr}`)));
    });
    lines.on('line', () => {}); // keep draining stdout
    return { child, ...listening, url: `http://127.0.0.1:${listening.port}`, exited };
  }

  const client = (url: string, timeoutMs = 5_000) => {
    const c = new WorldClient(url, { timeoutMs });
    cleanup.push(() => c.close());
    return c;
  };
  const runDir = () => {
    const run = tempRunDir('world-process');
    cleanup.push(run.remove);
    return run.dir;
  };

  // Never skipped: the command is part of the CLI, and a missing one (or a missing build) is a failure, not a reason to skip.
  describe('queue-drill world', () => {
    it('is a command of the built CLI', () => {
      const help = spawnSync(process.execPath, [CLI_PATH, 'world', '--help'], { encoding: 'utf8' });
      // `world --help` exits 0 even when the command is missing (yargs prints the general help), so look for its option.
      expect(help.status, `${CLI_PATH}: ${help.stderr} (run npm run build)`).toBe(0);
      expect(help.stdout, 'the `world` command is registered in src/cli/main.ts').toContain('--ledger');
    });

    it('announces its port, serves calls, and exits 0 on SIGTERM', async () => {
      const file = join(runDir(), 'world.db');
      const world = await start([CLI_PATH, 'world', '--ledger', file]);
      expect(world.pid).toBe(world.child.pid);
      await client(world.url).call('charge_customer', 'job-1:charge', { customer: 'c', amount: 1 }, META);
      world.child.kill('SIGTERM');
      expect(await world.exited).toEqual({ code: 0, signal: null });
      expect(readLedger(file)).toHaveLength(1);
    });

    it('SIGKILLed while delaying an applied call: the effect survives, and a restart keeps the faults and replays the key', async () => {
      const file = join(runDir(), 'world.db');
      const first = await start([CLI_PATH, 'world', '--ledger', file]);
      const c1 = client(first.url, 10_000);
      await c1.armFault({ match: { key: 'job-1:write' }, action: { type: 'delay', ms: 30_000, applied: true } });
      await c1.armFault({ match: { key: 'never' }, action: { type: 'drop' } });
      const pending = c1.call('write_file', 'job-1:write', { path: 'a.txt', content: 'x' }, META).catch((error: unknown) => error);
      // Wait until the effect is committed (the world then holds the answer), then kill it.
      await waitFor(() => readLedger(file).length > 0, { timeoutMs: 10_000, what: 'the delayed call to be committed to the ledger' });
      first.child.kill('SIGKILL');
      expect((await first.exited).signal).toBe('SIGKILL');
      expect(await pending).toBeInstanceOf(UnknownOutcomeError);
      expect(readLedger(file)).toMatchObject([{ key: 'job-1:write', externalRef: 'fv_000001' }]);
      expect(readCalls(file)).toMatchObject([{ outcome: 'applied', faultId: 1 }]);

      const second = await start([CLI_PATH, 'world', '--ledger', file]);
      const c2 = client(second.url);
      expect((await c2.faults()).map((f) => [f.id, f.fired, f.remaining])).toEqual([
        [1, 1, 0],
        [2, 0, 1],
      ]);
      expect(await c2.call('write_file', 'job-1:write', { path: 'a.txt', content: 'x' }, { ...META, attempt: 2 })).toMatchObject({
        replayed: true,
        externalRef: 'fv_000001',
      });
      expect(readLedger(file)).toHaveLength(1);
      expect(readFaults(file)).toHaveLength(2);
    });

    it('refuses a bad --port', () => {
      const result = spawnSync(process.execPath, [CLI_PATH, 'world', '--ledger', 'x.db', '--port', '70000'], { encoding: 'utf8' });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('--port');
    });
  });

  describe('compiled modules (dist/world)', () => {
    const script = (body: string) => ['--input-type=module', '-e', body];
    const worldScript = script(
      [
        `import { runWorld } from ${JSON.stringify(pathToFileURL(RUN_WORLD_JS).href)};`,
        `import { systemClock } from ${JSON.stringify(pathToFileURL(CLOCK_JS).href)};`,
        'const stop = new AbortController();',
        "process.on('SIGTERM', () => stop.abort());",
        'await runWorld({ ledger: process.env.WORLD_LEDGER, port: 0, clock: systemClock(), signal: stop.signal });',
      ].join('\n'),
    );

    it('is built', () => {
      expect(existsSync(RUN_WORLD_JS), `${RUN_WORLD_JS} is missing: run npm run build`).toBe(true);
    });

    it('three world processes on one ledger: 50 racing calls on one key apply once; on a non-idempotent tool, once per call', async () => {
      const file = join(runDir(), 'world.db');
      const worlds = await Promise.all([1, 2, 3].map(() => start(worldScript, { WORLD_LEDGER: file })));
      const clients = worlds.flatMap((w) => [client(w.url, 20_000), client(w.url, 20_000)]);
      const CALLS = 50;
      const across = <T>(fn: (c: WorldClient, i: number) => Promise<T>) =>
        Promise.all(Array.from({ length: CALLS }, (_, i) => fn(clients[i % clients.length]!, i)));

      const keyed = await across((c, i) => c.call('write_file', 'job-1:write', { path: 'a.txt', content: 'same' }, { ...META, attempt: i + 1 }));
      expect(keyed.filter((a) => !a.replayed)).toHaveLength(1);
      expect(new Set(keyed.map((a) => a.externalRef)).size).toBe(1);

      await across((c, i) => c.call('charge_customer', 'job-2:charge', { customer: 'c', amount: 1 }, { ...META, attempt: i + 1 }));
      await across((c, i) => c.call('create_branch', `job-${i}:branch`, { name: `b${i}` }, META));

      const rows = readLedger(file);
      expect(rows.filter((r) => r.key === 'job-1:write')).toHaveLength(1);
      expect(rows.filter((r) => r.key === 'job-2:charge')).toHaveLength(CALLS);
      expect(rows.filter((r) => r.tool === 'create_branch')).toHaveLength(CALLS);
      // No lost row, no reused seq or reference, across processes.
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
      expect(new Set(rows.map((r) => r.externalRef)).size).toBe(rows.length);
      expect(new Set(rows.map((r) => r.pid)).size).toBe(1); // the callers' pid (meta), not the worlds'
      expect(readCalls(file)).toHaveLength(3 * CALLS);
      for (const w of worlds) w.child.kill('SIGTERM');
      for (const w of worlds) expect(await w.exited).toEqual({ code: 0, signal: null });
    });

    it('a client leaves nothing that keeps its process alive', async () => {
      const file = join(runDir(), 'world.db');
      const world = await start(worldScript, { WORLD_LEDGER: file });
      const user = spawn(
        process.execPath,
        script(
          [
            `import { WorldClient } from ${JSON.stringify(pathToFileURL(CLIENT_JS).href)};`,
            `const c = new WorldClient(${JSON.stringify(world.url)});`,
            "await c.call('send_email', 'k', { to: 'a@example.com', subject: 's' }, { job: 1, step: 's', attempt: 1, worker: 'w', pid: process.pid });",
            'await c.ledger();',
            // No close(): the process must still end on its own.
          ].join('\n'),
        ),
        { stdio: 'ignore' },
      );
      const exited = new Promise<number | null>((resolve) => user.once('exit', (code) => resolve(code)));
      cleanup.push(async () => {
        if (user.exitCode === null) user.kill('SIGKILL');
        await exited;
      });
      const timer = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 8_000).unref());
      expect(await Promise.race([exited, timer])).toBe(0);
      expect(readLedger(file)).toHaveLength(1);
    });
  });
});
