import { afterEach, describe, expect, it } from 'vitest';
import { startTestWorld, type TestWorld } from '../world-fixture.js';
import { raw } from './raw-request.js';

describe('GET /health', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('answers ok with the serving process’s pid, and only to GET', async () => {
    world = await startTestWorld();
    const answer = await raw(world.server.url, 'GET', '/health');
    expect([answer.status, answer.body]).toEqual([200, { ok: true, pid: process.pid }]);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(await world.client.health()).toEqual({ ok: true, pid: process.pid });
    const wrong = await raw(world.server.url, 'POST', '/health', '{}');
    expect([wrong.status, wrong.body.error.code, wrong.headers.allow]).toEqual([405, 'WORLD_METHOD_NOT_ALLOWED', 'GET']);
  });

  it('records nothing: a health check is not a call', async () => {
    world = await startTestWorld();
    await raw(world.server.url, 'GET', '/health');
    expect(world.ledger.calls()).toEqual([]);
    expect(world.logged).toEqual([]);
  });
});
