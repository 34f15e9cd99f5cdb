import { afterEach, describe, expect, it } from 'vitest';
import { readCalls } from '../../../src/world/ledger.js';
import { meta, startTestWorld, type TestWorld } from '../world-fixture.js';
import { raw } from './raw-request.js';

describe('GET /calls', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('answers every call received, in order, refused and replayed ones included', async () => {
    world = await startTestWorld();
    expect((await raw(world.server.url, 'GET', '/calls')).body).toEqual({ calls: [] });
    await world.client.call('write_file', 'j:write', { path: 'a.txt', content: 'x' }, meta());
    await world.client.call('write_file', 'j:write', { path: 'a.txt', content: 'x' }, meta(1, 'write', 2));
    await raw(world.server.url, 'POST', '/call', JSON.stringify({ tool: 'drop_database', key: 'k', args: {}, meta: meta() }));
    const answer = await raw(world.server.url, 'GET', '/calls');
    expect(answer.status).toBe(200);
    expect(
      answer.body.calls.map((c: { seq: number; tool: string; outcome: string; status: number }) => [c.seq, c.tool, c.outcome, c.status]),
    ).toEqual([
      [1, 'write_file', 'applied', 200],
      [2, 'write_file', 'replayed', 200],
      [3, 'drop_database', 'failed', 400],
    ]);
    expect(answer.body.calls).toEqual(readCalls(world.file));
    expect(await world.client.calls()).toEqual(answer.body.calls);
  });

  it('is read-only: other methods are refused with allow: GET', async () => {
    world = await startTestWorld();
    const wrong = await raw(world.server.url, 'POST', '/calls', '{}');
    expect([wrong.status, wrong.body.error.code, wrong.headers.allow]).toEqual([405, 'WORLD_METHOD_NOT_ALLOWED', 'GET']);
  });
});
