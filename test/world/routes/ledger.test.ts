import { afterEach, describe, expect, it } from 'vitest';
import { readLedger } from '../../../src/world/ledger.js';
import { meta, startTestWorld, type TestWorld } from '../world-fixture.js';
import { raw } from './raw-request.js';

describe('GET /ledger', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('answers every applied effect in order, as the file holds them; replays and refused calls add none', async () => {
    world = await startTestWorld();
    expect((await raw(world.server.url, 'GET', '/ledger')).body).toEqual({ effects: [] });
    await world.client.call('charge_customer', 'j:charge', { customer: 'c', amount: 3 }, meta());
    await world.client.call('write_file', 'j:write', { path: 'a.txt', content: 'x' }, meta());
    await world.client.call('write_file', 'j:write', { path: 'a.txt', content: 'x' }, meta(1, 'write', 2));
    await raw(world.server.url, 'POST', '/call', 'not json');
    const answer = await raw(world.server.url, 'GET', '/ledger');
    expect(answer.status).toBe(200);
    expect(answer.body.effects.map((e: { externalRef: string }) => e.externalRef)).toEqual(['ch_000001', 'fv_000002']);
    expect(answer.body.effects).toEqual(readLedger(world.file));
  });

  it('is read-only: other methods are refused with allow: GET', async () => {
    world = await startTestWorld();
    const wrong = await raw(world.server.url, 'DELETE', '/ledger');
    expect([wrong.status, wrong.body.error.code, wrong.headers.allow]).toEqual([405, 'WORLD_METHOD_NOT_ALLOWED', 'GET']);
  });
});
