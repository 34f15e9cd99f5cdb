import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readCalls, readLedger } from '../../src/world/ledger.js';
import { meta, startTestWorld, type TestWorld } from './world-fixture.js';

/** Sends a call and resolves with how its socket ended: a status, or the error code. */
function callRaw(url: string, body: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(new URL('/call', url), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end(body);
  });
}

describe('the world server’s lifecycle', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('close() ends a delayed answer at once, keeps its committed effect, and frees the port', async () => {
    world = await startTestWorld();
    await world.client.armFault({ match: { tool: 'charge_customer' }, action: { type: 'delay', ms: 60_000, applied: true } });
    const pending = callRaw(
      world.server.url,
      JSON.stringify({ tool: 'charge_customer', key: 'j:c', args: { customer: 'c', amount: 1 }, meta: meta() }),
    );
    const file = world.file;
    // Committed before the hold begins: wait for the row, not for a timer.
    while (readLedger(file).length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const started = performance.now();
    await world.server.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(typeof (await pending)).toBe('string');
    expect(readCalls(file)).toMatchObject([{ outcome: 'applied', status: 200, faultId: 1 }]);
    expect(world.logged).toMatchObject([{ outcome: 'applied', status: 200, fault: 'delay' }]);
    expect(await callRaw(world.server.url, '{}')).toBe('ECONNREFUSED');
  });

  it('close() twice is the same close', async () => {
    world = await startTestWorld();
    await Promise.all([world.server.close(), world.server.close()]);
    await expect(world.server.close()).resolves.toBeUndefined();
  });
});
