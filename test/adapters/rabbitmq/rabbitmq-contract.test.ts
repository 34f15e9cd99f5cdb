import { describe, expect, it } from 'vitest';
import { CONTRACT_CHECKS } from '../../../src/contract/checks/index.js';
import { runContract } from '../../../src/contract/run-contract.js';
import { queueImpl } from '../../../src/queues/registry.js';
import { skipWithoutRabbitmq } from '../../helpers/brokers.js';
import { rabbitmqQueuesStartingWith } from './broker-queues.js';

/*
 * The adapter contract against RabbitMQ on the local broker, each check on
 * queues of its own that are gone afterwards. Every check its capabilities
 * claim passes; two are not judged, each with RabbitMQ's reason: it dedupes
 * nothing on publish, and it never takes a message back from a live holder by
 * time (only when the holder's channel closes).
 */
describe.skipIf(skipWithoutRabbitmq('the contract checks on the rabbitmq queue (test/adapters/rabbitmq)'))('rabbitmq: the adapter contract', () => {
  it('passes every check it claims, does not judge dedupe or expiry by time, and leaves no queue behind', async () => {
    const results = await runContract(queueImpl('rabbitmq'), { servers: {} });
    const notJudged: Record<string, RegExp> = {
      'enqueue-dedupe': /^RabbitMQ dedupes nothing on publish/,
      'expired-lease-taken-back': /^RabbitMQ takes a message back only when its holder's channel or connection closes/,
    };
    expect(results.map((r) => [r.check, r.status])).toEqual(CONTRACT_CHECKS.map((c) => [c.id, notJudged[c.id] ? 'not_judged' : 'passed']));
    for (const result of results.filter((r) => r.status === 'not_judged')) expect(result.detail).toMatch(notJudged[result.check]!);
    // Each check's queues are named from `contract rabbitmq <check> <pid> <n>` (src/contract/run-contract.ts).
    expect((await rabbitmqQueuesStartingWith('qd.contract-rabbitmq-')).filter((name) => name.includes(`-${process.pid}-`))).toEqual([]);
  });
});
