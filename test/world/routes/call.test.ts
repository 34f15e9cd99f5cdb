import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { readCalls, readLedger } from '../../../src/world/ledger.js';
import { MAX_BODY_BYTES } from '../../../src/world/server.js';
import { meta, startTestWorld, type TestWorld } from '../world-fixture.js';
import { raw } from './raw-request.js';

/** Posts a body and resolves with the status, or with the socket error when the world hangs up while it is sent. */
function post(url: string, path: string, body: Buffer): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(new URL(path, url), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end(body);
  });
}

const CHARGE = { customer: 'c_1024', amount: 199 };

describe('POST /call', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('logs one line per call with who called and how it ended, and never the arguments', async () => {
    world = await startTestWorld();
    await world.client.call('charge_customer', 'j:charge', { ...CHARGE, api_key: 'sk_live_hidden' }, meta(7, 'charge', 2));
    await raw(world.server.url, 'POST', '/call', JSON.stringify({ tool: 'charge_customer', key: 'j:bad', args: { customer: 'c' }, meta: meta() }));
    expect(world.logged).toEqual([
      {
        seq: 1,
        tool: 'charge_customer',
        key: 'j:charge',
        outcome: 'applied',
        status: 200,
        faultId: null,
        fault: null,
        externalRef: 'ch_000001',
        job: '7',
        step: 'charge',
        attempt: 2,
        worker: 'w-test',
        ms: expect.any(Number),
      },
      {
        seq: 2,
        tool: 'charge_customer',
        key: 'j:bad',
        outcome: 'failed',
        status: 400,
        faultId: null,
        fault: null,
        externalRef: null,
        job: 'job-1',
        step: 'step-1',
        attempt: 1,
        worker: 'w-test',
        ms: expect.any(Number),
      },
    ]);
    expect(JSON.stringify(world.logged)).not.toContain('sk_live_hidden');
  });

  it('refuses a body over the size limit as a failed call with status 413, and applies nothing', async () => {
    world = await startTestWorld();
    const answer = await post(world.server.url, '/call', Buffer.alloc(MAX_BODY_BYTES + 1, 'x'));
    // The world stops reading and hangs up: the caller may see the 413 or only a reset, depending on timing.
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(answer);
    expect(readCalls(world.file)).toMatchObject([{ seq: 1, tool: null, key: null, outcome: 'failed', status: 413 }]);
    expect(readLedger(world.file)).toEqual([]);
    expect(world.logged).toMatchObject([{ outcome: 'failed', status: 413 }]);
    // The world is still serving.
    expect(await world.client.health()).toMatchObject({ ok: true });
  });

  it('refuses, applying nothing, a call matched by a stored fault whose action this world does not know', async () => {
    world = await startTestWorld();
    // As a newer world could have armed it on the same ledger file.
    world.ledger.db
      .prepare('INSERT INTO faults (spec_json, times, armed_at) VALUES (?, 1, ?)')
      .run(JSON.stringify({ match: {}, action: { type: 'corrupt' }, times: 1 }), '2026-01-01T00:00:00.000Z');
    const answer = await raw(world.server.url, 'POST', '/call', JSON.stringify({ tool: 'charge_customer', key: 'j:c', args: CHARGE, meta: meta() }));
    expect([answer.status, answer.body.error.code]).toEqual([500, 'WORLD_INTERNAL']);
    expect(answer.body.error.message).toContain('"corrupt"');
    expect(readLedger(world.file)).toEqual([]);
    expect(readCalls(world.file)).toMatchObject([{ outcome: 'failed', status: 500, faultId: 1 }]);
  });
});
