import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/harness/wait-for.js';
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
    // Held ten minutes, past the test's own timeout: a close that waited for the hold would never end in time.
    await world.client.armFault({ match: { tool: 'charge_customer' }, action: { type: 'delay', ms: 600_000, applied: true } });
    const pending = callRaw(
      world.server.url,
      JSON.stringify({ tool: 'charge_customer', key: 'j:c', args: { customer: 'c', amount: 1 }, meta: meta() }),
    );
    const file = world.file;
    // Committed before the hold begins: wait for the row, not for a timer.
    await waitFor(() => readLedger(file).length > 0, { timeoutMs: 5_000, what: 'the delayed call to be committed' });
    await world.server.close();
    // The caller was cut off (a socket error, not an answer): the hold ended with the close, not by its timer.
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
