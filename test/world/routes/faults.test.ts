import { afterEach, describe, expect, it } from 'vitest';
import { readFaults } from '../../../src/world/faults.js';
import { startTestWorld, type TestWorld } from '../world-fixture.js';
import { raw } from './raw-request.js';

const DROP = { action: { type: 'drop' } };

describe('/faults', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('POST arms with 201 and the filled-in spec; GET lists the armed ones; DELETE clears them and keeps them in the file', async () => {
    world = await startTestWorld();
    const armed = await raw(world.server.url, 'POST', '/faults', JSON.stringify(DROP));
    expect(armed.status).toBe(201);
    expect(armed.body).toEqual({
      id: 1,
      fault: { id: 1, spec: { match: {}, action: { type: 'drop' }, times: 1 }, fired: 0, remaining: 1, armedAt: expect.any(String), clearedAt: null },
    });
    expect((await raw(world.server.url, 'GET', '/faults')).body.faults).toHaveLength(1);
    const cleared = await raw(world.server.url, 'DELETE', '/faults');
    expect(cleared.status).toBe(200);
    expect(cleared.body.cleared).toMatchObject([{ id: 1, remaining: 0, clearedAt: expect.any(String) }]);
    expect((await raw(world.server.url, 'GET', '/faults')).body).toEqual({ faults: [] });
    expect((await raw(world.server.url, 'GET', '/faults?all=1')).body.faults).toMatchObject([
      { id: 1, clearedAt: cleared.body.cleared[0].clearedAt },
    ]);
    expect(readFaults(world.file)).toHaveLength(1);
  });

  it('answers 405 with every method it serves, in a stable order', async () => {
    world = await startTestWorld();
    const wrong = await raw(world.server.url, 'PUT', '/faults', '{}');
    expect([wrong.status, wrong.body.error.code, wrong.headers.allow]).toEqual([405, 'WORLD_METHOD_NOT_ALLOWED', 'POST, GET, DELETE']);
  });

  it('refuses a body over the size limit and arms nothing', async () => {
    world = await startTestWorld();
    const huge = JSON.stringify({ ...DROP, pad: 'x'.repeat(1024 * 1024) });
    const answer = await raw(world.server.url, 'POST', '/faults', huge).catch((error: NodeJS.ErrnoException) => error.code);
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(typeof answer === 'object' ? answer.status : answer);
    expect(await world.client.faults({ includeCleared: true })).toEqual([]);
  });
});
