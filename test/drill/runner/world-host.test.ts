import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorldHost } from '../../../src/drill/runner/world-host.js';
import { WorldClient } from '../../../src/world/client.js';
import { readLedger } from '../../../src/world/ledger.js';
import { groupAlive, tempRunDir } from '../../helpers/run-dir.js';

const META = { job: 1, step: 'write', attempt: 1, worker: 'w1', pid: 1 };

/*
 * The world host as the drill runs it: one real `queue-drill world-host`
 * process (the compiled JS), each scenario's world opened in it on a ledger
 * and a port of its own, closed before its evidence is read.
 */
describe("the world host: every scenario's world in one process", () => {
  let run: ReturnType<typeof tempRunDir>;
  let host: WorldHost;
  beforeEach(() => {
    run = tempRunDir('world-host');
    host = new WorldHost(run.dir);
  });
  afterEach(async () => {
    await host.stop();
    run.remove();
  });

  it('serves two worlds apart, each call in its own ledger and log, from one process', async () => {
    const one = await host.open(join(run.dir, 'one.db'), join(run.dir, 'one.log'));
    const two = await host.open(join(run.dir, 'two.db'), join(run.dir, 'two.log'));
    expect(one.pid).toBe(two.pid);
    expect(one.port).not.toBe(two.port);
    const client = new WorldClient(one.url);
    await client.call('write_file', 'k1', { path: 'a.txt', content: 'x' }, META);
    client.close();
    await one.close();
    await two.close();
    expect(readLedger(join(run.dir, 'one.db')).map((effect) => effect.key)).toEqual(['k1']);
    expect(readLedger(join(run.dir, 'two.db'))).toEqual([]);
    const lines = readFileSync(join(run.dir, 'one.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string });
    expect(lines.map((line) => line.event)).toEqual(['listening', 'call', 'stopped']);
    expect(readFileSync(join(run.dir, 'two.log'), 'utf8')).not.toContain('"call"');
  });

  it('a closed world answers no more; a second close does nothing', async () => {
    const world = await host.open(join(run.dir, 'w.db'), join(run.dir, 'w.log'));
    await world.close();
    await world.close();
    const client = new WorldClient(world.url, { timeoutMs: 2_000 });
    await expect(client.call('write_file', 'k1', { path: 'a.txt', content: 'x' }, META)).rejects.toThrow();
    client.close();
  });

  it("told to, stop removes the host's own log: a clean explore's folder ends empty", async () => {
    const out = join(run.dir, 'explore-out');
    mkdirSync(out);
    const quiet = new WorldHost(out, true);
    const world = await quiet.open(join(run.dir, 'q.db'), join(run.dir, 'q.log'));
    expect(readdirSync(out)).toContain('world-host.1.log');
    await world.close();
    await quiet.stop();
    expect(readdirSync(out)).toEqual([]);
  });

  it('a host that died is started again at the next open; stop leaves no process', async () => {
    const first = await host.open(join(run.dir, 'a.db'), join(run.dir, 'a.log'));
    process.kill(first.pid, 'SIGKILL');
    await expect.poll(() => groupAlive(first.pid), { timeout: 5_000 }).toBe(false);
    const second = await host.open(join(run.dir, 'b.db'), join(run.dir, 'b.log'));
    expect(second.pid).not.toBe(first.pid);
    await host.stop();
    expect(groupAlive(second.pid)).toBe(false);
  });
});
