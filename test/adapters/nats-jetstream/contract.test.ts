import { describe, expect, it } from 'vitest';
import { CONTRACT_CHECKS } from '../../../src/contract/checks/index.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { queueImpl } from '../../../src/queues/registry.js';
import { NATS_URL, skipWithoutNats } from '../../helpers/brokers.js';
import { streamNames } from './fresh-queue.js';

/*
 * The adapter contract against NATS JetStream on the local server (its racing
 * threads run dist/: build first), each check on a stream of its own that is
 * gone afterwards. Every check its capabilities claim passes; the stale-write
 * check is not judged: JetStream fences no acknowledgement (probe N1).
 */
describe.skipIf(skipWithoutNats('the contract checks on the nats-jetstream queue (test/adapters/nats-jetstream)'))(
  'nats-jetstream: the adapter contract',
  () => {
    it('every check passes but stale-write-refused, not judged with JetStream’s reason; no stream of any check is left behind', async () => {
      const impl = queueImpl('nats-jetstream');
      const results = await runContract(impl, { servers: { natsUrl: NATS_URL } });
      const expected = CONTRACT_CHECKS.map((c) =>
        c.id === 'stale-write-refused' ? [c.id, 'not_judged', impl.capabilities.fencing] : [c.id, 'passed', null],
      );
      expect(results.map((r) => [r.check, r.status, r.detail])).toEqual(expected);
      // Each check's stream is made from `contract nats-jetstream <check> <pid> <n>` (src/contract/run-contract.ts).
      expect((await streamNames()).filter((name) => name.startsWith(`QD_contract_nats_jetstream_`))).toEqual([]);
    });
  },
);
