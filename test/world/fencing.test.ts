import { afterEach, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/world/ledger.js';
import { meta, startTestWorld, type TestWorld } from './world-fixture.js';

// A race the drill's explore found: a holder whose lease had expired (but was
// not yet taken back) checkpointed, stalled, and charged after the next holder
// had reconciled "not executed" and charged too. The world must refuse the
// stale holder, by the fence it shows.
describe('fencing at the world', () => {
  let world: TestWorld;
  afterEach(async () => world.stop());

  it('refuses a call under an older fence than the key has seen, and applies nothing', async () => {
    world = await startTestWorld();
    const charge = { customer: 'c_1', amount: 5 };
    await world.client.call('charge_customer', 'job:charge', charge, { ...meta(1, 'charge', 3), fence: 3 });
    const stale = world.client.call('charge_customer', 'job:charge', charge, { ...meta(1, 'charge', 2), fence: 2 });
    await expect(stale).rejects.toMatchObject({ code: 'WORLD_STALE_FENCE', status: 409 });
    expect(readLedger(world.file).filter((e) => e.key === 'job:charge')).toHaveLength(1);
  });

  it('a fenced reconciliation answering not_executed keeps it so for every older holder', async () => {
    world = await startTestWorld();
    expect(await world.client.reconcile('charge_customer', 'job:charge', 4)).toEqual({ status: 'not_executed' });
    await expect(world.client.call('charge_customer', 'job:charge', { customer: 'c_1', amount: 5 }, { ...meta(1, 'charge', 3), fence: 3 })).rejects.toMatchObject({
      code: 'WORLD_STALE_FENCE',
    });
    expect(await world.client.reconcile('charge_customer', 'job:charge')).toEqual({ status: 'not_executed' });
    // The holder that showed the fence (or a later one) may go ahead.
    await world.client.call('charge_customer', 'job:charge', { customer: 'c_1', amount: 5 }, { ...meta(1, 'charge', 4), fence: 4 });
    expect(readLedger(world.file)).toHaveLength(1);
  });

  it('calls without a fence are not fenced (callers that hold no lease)', async () => {
    world = await startTestWorld();
    await world.client.reconcile('charge_customer', 'k', 9);
    await world.client.call('charge_customer', 'k', { customer: 'c_1', amount: 5 }, meta());
    expect(readLedger(world.file)).toHaveLength(1);
  });
});
