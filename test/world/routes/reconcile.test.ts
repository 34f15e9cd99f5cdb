import { afterEach, describe, expect, it } from 'vitest';
import { meta, startTestWorld, type TestWorld } from '../world-fixture.js';
import { raw } from './raw-request.js';

describe('GET /reconcile', () => {
  let world: TestWorld | undefined;
  afterEach(async () => {
    await world?.stop();
    world = undefined;
  });

  it('names every missing parameter at once', async () => {
    world = await startTestWorld();
    const answer = await raw(world.server.url, 'GET', '/reconcile');
    expect([answer.status, answer.body.error.code]).toEqual([400, 'WORLD_BAD_REQUEST']);
    expect(answer.body.error.issues).toEqual([
      { path: 'tool', message: 'required' },
      { path: 'key', message: 'required' },
    ]);
  });

  it('refuses a fence that is not a whole number, and raises no floor', async () => {
    world = await startTestWorld();
    for (const fence of ['-1', '1.5', 'x']) {
      const answer = await raw(world.server.url, 'GET', `/reconcile?tool=charge_customer&key=k&fence=${fence}`);
      expect([answer.status, answer.body.error.issues], fence).toEqual([400, [{ path: 'fence', message: 'a whole number' }]]);
    }
    expect(world.ledger.db.prepare('SELECT COUNT(*) AS n FROM world_fences').get()).toEqual({ n: 0 });
  });

  it('answers a key a call was applied under, and records no call of its own', async () => {
    world = await startTestWorld();
    await world.client.call('charge_customer', 'j:charge', { customer: 'c', amount: 1 }, meta());
    const answer = await raw(world.server.url, 'GET', '/reconcile?tool=charge_customer&key=j%3Acharge&fence=3&job=1');
    expect(answer).toMatchObject({ status: 200, body: { status: 'completed', externalRef: 'ch_000001', applied: 1 } });
    expect(world.ledger.calls()).toHaveLength(1);
    expect(world.ledger.db.prepare('SELECT job, fence FROM world_job_fences').all()).toEqual([{ job: '1', fence: 3 }]);
  });
});
