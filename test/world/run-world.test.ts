import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/harness/wait-for.js';
import { ManualClock } from '../../src/kernel/clock.js';
import { TransientError } from '../../src/kernel/job-errors.js';
import { WorldClient } from '../../src/world/client.js';
import { readLedger } from '../../src/world/ledger.js';
import { runWorld } from '../../src/world/run-world.js';
import { tempRunDir } from '../helpers/run-dir.js';

describe('runWorld', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  it('announces its port on one JSON line, logs each call without its arguments, and closes on abort', async () => {
    const run = tempRunDir('run-world');
    cleanup.push(run.remove);
    const file = join(run.dir, 'world.db');
    let out = '';
    const stop = new AbortController();
    cleanup.push(() => stop.abort());
    const clock = new ManualClock(Date.UTC(2026, 7, 25, 10));
    const done = runWorld({ ledger: file, clock, signal: stop.signal, write: (text) => (out += text) });

    const first = await waitFor(() => (out.includes('\n') ? out.slice(0, out.indexOf('\n')) : undefined), {
      timeoutMs: 5_000,
      what: 'the listening line',
    });
    const listening = JSON.parse(first) as { event: string; port: number; pid: number };
    expect(Object.keys(listening)).toEqual(['event', 'port', 'pid']);
    expect(listening).toMatchObject({ event: 'listening', pid: process.pid });
    expect(listening.port).toBeGreaterThan(0);

    const client = new WorldClient(`http://127.0.0.1:${listening.port}`, { timeoutMs: 2_000 });
    cleanup.push(() => client.close());
    const secret = 'sk_live_0123456789abcdefXYZ';
    await client.call(
      'charge_customer',
      'job-9:charge',
      { customer: 'cust_private_name', amount: 5, api_key: secret },
      { job: 9, step: 'charge', attempt: 1, worker: 'w1', pid: 1 },
    );
    await client
      .call('bogus_tool', 'job-9:x', { password: 'hunter2hunter2' }, { job: 9, step: 'x', attempt: 1, worker: 'w1', pid: 1 })
      .catch(() => undefined);

    const lines = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.slice(1)).toMatchObject([
      {
        event: 'call',
        source: 'world',
        at: '2026-08-25T10:00:00.000Z',
        seq: 1,
        tool: 'charge_customer',
        key: 'job-9:charge',
        outcome: 'applied',
        status: 200,
        externalRef: 'ch_000001',
        job: '9',
        worker: 'w1',
      },
      { event: 'call', seq: 2, tool: 'bogus_tool', outcome: 'failed', status: 400 },
    ]);
    for (const leak of [secret, 'cust_private_name', 'hunter2hunter2']) expect(out).not.toContain(leak);

    stop.abort();
    await done;
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toMatchObject({ event: 'stopped' });
    // Closed: the port refuses, and the ledger file is complete and closed.
    const refused = await client.health().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TransientError);
    expect(readLedger(file)).toHaveLength(1);
  });

  it('rejects when its port is already taken', async () => {
    const run = tempRunDir('run-world-busy');
    cleanup.push(run.remove);
    let out = '';
    const stop = new AbortController();
    cleanup.push(() => stop.abort());
    const first = runWorld({ ledger: join(run.dir, 'a.db'), clock: new ManualClock(), signal: stop.signal, write: (text) => (out += text) });
    const port = (
      JSON.parse(await waitFor(() => (out.includes('\n') ? out.split('\n')[0] : undefined), { timeoutMs: 5_000, what: 'listening' })) as {
        port: number;
      }
    ).port;
    await expect(
      runWorld({ ledger: join(run.dir, 'b.db'), port, clock: new ManualClock(), signal: new AbortController().signal, write: () => {} }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    stop.abort();
    await first;
  });
});
