import { afterEach, describe, expect, it } from 'vitest';
import { setFences } from '../../src/world/ledger/settings-table.js';
import { readCalls, readLedger } from '../../src/world/ledger.js';
import { meta, startTestWorld, type TestWorld } from './world-fixture.js';

const CHARGE = { customer: 'c_1', amount: 5 };
const EMAIL = { to: 'a@example.com', subject: 'receipt' };

// A race the drill's explore found: a holder whose lease had expired (but was
// not yet taken back) checkpointed, stalled, and charged after the next holder
// had reconciled "not executed" and charged too. The world must refuse the
// stale holder, by the fence it shows.
describe('fencing at the world, per key', () => {
  let world: TestWorld;
  afterEach(async () => world.stop());

  it('refuses a call under an older fence than the key has seen, and applies nothing', async () => {
    world = await startTestWorld();
    await world.client.call('charge_customer', 'job:charge', CHARGE, { ...meta('1', 'charge', 3), fence: 3 });
    const stale = world.client.call('charge_customer', 'job:charge', CHARGE, { ...meta('1', 'charge', 2), fence: 2 });
    await expect(stale).rejects.toMatchObject({ code: 'WORLD_STALE_FENCE', status: 409 });
    expect(readLedger(world.file).filter((e) => e.key === 'job:charge')).toHaveLength(1);
  });

  it('a fenced reconciliation answering not_executed keeps it so for every older holder', async () => {
    world = await startTestWorld();
    expect(await world.client.reconcile('charge_customer', 'job:charge', { epoch: 4 })).toEqual({ status: 'not_executed' });
    await expect(world.client.call('charge_customer', 'job:charge', CHARGE, { ...meta('1', 'charge', 3), fence: 3 })).rejects.toMatchObject({
      code: 'WORLD_STALE_FENCE',
    });
    expect(await world.client.reconcile('charge_customer', 'job:charge')).toEqual({ status: 'not_executed' });
    // The holder that showed the fence (or a later one) may go ahead.
    await world.client.call('charge_customer', 'job:charge', CHARGE, { ...meta('1', 'charge', 4), fence: 4 });
    expect(readLedger(world.file)).toHaveLength(1);
  });

  it('calls without a fence are not fenced (callers that hold no lease)', async () => {
    world = await startTestWorld();
    await world.client.reconcile('charge_customer', 'k', { epoch: 9, job: 'job-1' });
    await world.client.call('charge_customer', 'k', CHARGE, meta());
    expect(readLedger(world.file)).toHaveLength(1);
  });
});

// A stale holder must not get past the fence by moving on to its job's next
// step: the key of that step has never been seen, but its job has.
describe('fencing at the world, per job', () => {
  let world: TestWorld;
  afterEach(async () => world.stop());

  // Three ways job '7' comes to have shown epoch 2: a call, a reconciliation naming the job, or a delivery's start.
  const raisers: Array<{ how: string; raise: (world: TestWorld) => Promise<unknown>; effects: number }> = [
    {
      how: 'a call under epoch 2',
      raise: (w) => w.client.call('charge_customer', '7:charge', CHARGE, { ...meta('7', 'charge', 2), fence: 2 }),
      effects: 1,
    },
    {
      how: 'a reconciliation with { epoch: 2, job: "7" }',
      raise: (w) => w.client.reconcile('charge_customer', '7:charge', { epoch: 2, job: '7' }),
      effects: 0,
    },
    {
      // The new lease is known from its grant: an older holder blocked past its
      // lease must not get a call in before the new holder's first one.
      how: "a report that w2's delivery of job 7 began under epoch 2",
      raise: (w) => w.client.reportDelivery({ job: '7', worker: 'w2', attempt: 2, epoch: 2, event: 'began' }),
      effects: 0,
    },
  ];

  it.each(raisers)(
    'after $how for job 7, a call for another key of job 7 under epoch 1 is refused and applies nothing',
    async ({ raise, effects }) => {
      world = await startTestWorld();
      await raise(world);
      const stale = world.client.call('send_email', '7:notify', EMAIL, { ...meta('7', 'notify', 1), fence: 1 });
      await expect(stale).rejects.toMatchObject({ code: 'WORLD_STALE_FENCE', status: 409 });
      const ledger = readLedger(world.file);
      expect(ledger.filter((e) => e.key === '7:notify')).toEqual([]);
      expect(ledger).toHaveLength(effects);
      // The refusal is on record as a call that failed before applying.
      expect(readCalls(world.file).at(-1)).toMatchObject({ key: '7:notify', job: '7', outcome: 'failed', status: 409, effectSeq: null });
      // Job 7's holder under epoch 2 (or later) goes ahead on that key.
      await world.client.call('send_email', '7:notify', EMAIL, { ...meta('7', 'notify', 2), fence: 2 });
      expect(
        readLedger(world.file)
          .filter((e) => e.key === '7:notify')
          .map((e) => e.epoch),
      ).toEqual([2]);
    },
  );

  it.each(raisers)('after $how for job 7, a call for another job under epoch 1 is unaffected', async ({ raise, effects }) => {
    world = await startTestWorld();
    await raise(world);
    await world.client.call('send_email', '8:notify', EMAIL, { ...meta('8', 'notify', 1), fence: 1 });
    expect(
      readLedger(world.file)
        .slice(effects)
        .map(({ key, job, epoch }) => ({ key, job, epoch })),
    ).toEqual([{ key: '8:notify', job: '8', epoch: 1 }]);
  });

  it('a reconciliation with an epoch but no job fences its key only', async () => {
    world = await startTestWorld();
    await world.client.reconcile('charge_customer', '7:charge', { epoch: 5 });
    await expect(world.client.call('charge_customer', '7:charge', CHARGE, { ...meta('7', 'charge', 1), fence: 1 })).rejects.toMatchObject({
      code: 'WORLD_STALE_FENCE',
    });
    await world.client.call('send_email', '7:notify', EMAIL, { ...meta('7', 'notify', 1), fence: 1 });
    expect(readLedger(world.file).map((e) => e.key)).toEqual(['7:notify']);
  });

  it("a stale reconciliation never lowers a job's floor", async () => {
    world = await startTestWorld();
    await world.client.call('charge_customer', '7:charge', CHARGE, { ...meta('7', 'charge', 3), fence: 3 });
    expect(await world.client.reconcile('charge_customer', '7:charge', { epoch: 1, job: '7' })).toMatchObject({ status: 'completed', applied: 1 });
    await expect(world.client.call('send_email', '7:notify', EMAIL, { ...meta('7', 'notify', 2), fence: 2 })).rejects.toMatchObject({
      code: 'WORLD_STALE_FENCE',
    });
    expect(readLedger(world.file)).toHaveLength(1);
  });

  it('every effect row carries the epoch its caller showed, and null when it showed none', async () => {
    world = await startTestWorld();
    await world.client.call('charge_customer', '7:charge', CHARGE, { ...meta('7', 'charge', 2), fence: 2 });
    await world.client.call('send_email', '7:notify', EMAIL, { ...meta('7', 'notify', 3), fence: 3 });
    await world.client.call('send_email', '7:notify', EMAIL, meta('7', 'notify', 3));
    await world.client.call('charge_customer', '9:charge', CHARGE, { ...meta('9', 'charge', 1), fence: 0 });
    expect(readLedger(world.file).map(({ key, job, epoch }) => ({ key, job, epoch }))).toEqual([
      { key: '7:charge', job: '7', epoch: 2 },
      { key: '7:notify', job: '7', epoch: 3 },
      { key: '7:notify', job: '7', epoch: null },
      { key: '9:charge', job: '9', epoch: 0 },
    ]);
  });
});

// A plain world: the service most real queues' workers call, which takes no
// fencing token. It applies what it is sent (and records the epoch shown), so a
// stale holder's effect reaches the ledger, where the judge sees it.
describe('a plain world (fences off in its ledger file)', () => {
  let world: TestWorld;
  afterEach(async () => world.stop());

  it('applies a call under an older fence than the key has seen, records each call’s fence, and neither a reconciliation nor a delivery’s start fences anything', async () => {
    world = await startTestWorld();
    setFences(world.ledger.db, false);
    await world.client.call('charge_customer', 'job:charge', CHARGE, { ...meta('1', 'charge', 3), fence: 3 });
    await world.client.call('charge_customer', 'job:charge', CHARGE, { ...meta('1', 'charge', 2), fence: 2 });
    expect(readLedger(world.file).map((e) => e.epoch)).toEqual([3, 2]);
    expect(readCalls(world.file).map((c) => [c.fence, c.outcome])).toEqual([
      [3, 'applied'],
      [2, 'applied'],
    ]);
    await world.client.reconcile('send_email', '1:notify', { epoch: 9, job: '1' });
    await world.client.reportDelivery({ job: '1', worker: 'w3', attempt: 3, epoch: 9, event: 'began' });
    await world.client.call('send_email', '1:notify', EMAIL, { ...meta('1', 'notify', 1), fence: 1 });
    expect(readLedger(world.file)).toHaveLength(3);
    // Turned back on, the same file fences again: the setting is the file's, read on each call.
    setFences(world.ledger.db, true);
    await world.client.call('send_email', '1:notify', EMAIL, { ...meta('1', 'notify', 5), fence: 5 });
    await expect(world.client.call('send_email', '1:notify', EMAIL, { ...meta('1', 'notify', 4), fence: 4 })).rejects.toMatchObject({
      code: 'WORLD_STALE_FENCE',
    });
  });
});

describe('delivery reports', () => {
  let world: TestWorld;
  afterEach(async () => world.stop());

  it('records each report in the world’s order, placed after the calls received so far, and refuses a malformed one', async () => {
    world = await startTestWorld();
    await world.client.reportDelivery({ job: '1', worker: 'w1', attempt: 1, epoch: 1, event: 'began' });
    await world.client.call('charge_customer', '1:charge', CHARGE, { ...meta('1', 'charge', 1), fence: 1 });
    await world.client.reportDelivery({ job: '1', worker: 'w1', attempt: 1, epoch: 1, event: 'writing', write: 'done' });
    await world.client.reportDelivery({ job: '1', worker: 'w1', attempt: 1, epoch: 1, event: 'wrote', applied: false });
    expect(world.ledger.deliveries().map(({ event, write, applied, callsBefore }) => ({ event, write, applied, callsBefore }))).toEqual([
      { event: 'began', write: null, applied: null, callsBefore: 0 },
      { event: 'writing', write: 'done', applied: null, callsBefore: 1 },
      { event: 'wrote', write: null, applied: false, callsBefore: 1 },
    ]);
    await expect(world.client.reportDelivery({ job: '1', worker: 'w1', attempt: -1, epoch: 1, event: 'began' })).rejects.toMatchObject({
      status: 400,
    });
    await expect(
      world.client.reportDelivery({ job: '1', worker: 'w1', attempt: 1, epoch: 1, event: 'began', write: 'payload' as never }),
    ).rejects.toMatchObject({ status: 400 });
    expect(world.ledger.deliveries()).toHaveLength(3);
  });
});
