import { defineCommand } from '../command.js';
import { ADAPTER_FLAG, queueFromFlags } from '../queue-flag.js';

/** `queue-drill contract`: the adapter contract's checks against one queue implementation. */
export const contractCommand = defineCommand({
  name: 'contract',
  describe: 'check a queue implementation against the adapter contract (dedupe, single holder, fencing, lease expiry, attempts, sticky review)',
  options: {
    queue: { type: 'string', describe: 'the queue implementation (queue-drill queues lists them) [default: reference]' },
    adapter: ADAPTER_FLAG,
    only: { type: 'string', describe: 'only these checks (comma-separated)' },
    'pg-url': { type: 'string', describe: 'PostgreSQL for --queue postgres [default: QD_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres]' },
    'redis-url': { type: 'string', describe: 'Redis for --queue bullmq [default: QD_REDIS_URL, else redis://127.0.0.1:6379]' },
    'amqp-url': { type: 'string', describe: 'RabbitMQ for --queue rabbitmq [default: QD_AMQP_URL, else amqp://guest:guest@127.0.0.1:5672]' },
    'nats-url': { type: 'string', describe: 'NATS for --queue nats-jetstream [default: QD_NATS_URL, else nats://127.0.0.1:4222]' },
    json: { type: 'boolean', default: false, describe: 'print JSON' },
  },
  async run(args) {
    const { queueImpl } = await import('../../queues/registry.js');
    const { runContract, renderContract } = await import('../../contract/run-contract.js');
    const { CONTRACT_CHECKS } = await import('../../contract/checks/index.js');
    const { EXIT, UsageError } = await import('../../kernel/errors.js');
    const { resolveServers, serversFromFlags } = await import('../../port/servers.js');
    const impl = queueImpl((await queueFromFlags(args)) ?? 'reference');
    const only = args.only
      ? args.only
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];
    const unknown = only.filter((id) => !CONTRACT_CHECKS.some((c) => c.id === id));
    if (unknown.length > 0)
      throw new UsageError(`--only ${unknown.join(', ')}: no such check; the checks are: ${CONTRACT_CHECKS.map((c) => c.id).join(', ')}`);
    const servers = resolveServers(serversFromFlags(args));
    await impl.preflight?.(servers);
    const results = await runContract(impl, { servers, only });
    process.stdout.write(`${args.json ? JSON.stringify({ queue: impl.name, results }, null, 2) : renderContract(impl.name, results)}\n`);
    process.exitCode = results.some((r) => r.status === 'failed') ? EXIT.violated : EXIT.ok;
  },
});
