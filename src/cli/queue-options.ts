/** The options every command that touches one queue takes: which implementation, and where its queue is. */
export const QUEUE_OPTIONS = {
  queue: { type: 'string', default: 'reference', describe: 'the queue implementation (queue-drill queues lists them)' },
  store: {
    type: 'string',
    demandOption: true,
    describe: 'where the queue is: a SQLite file, or a PostgreSQL schema (the server from --pg-url or QD_PG_URL)',
  },
  'pg-url': { type: 'string', describe: 'PostgreSQL, for --queue postgres [default: QD_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres]' },
  'redis-url': { type: 'string', describe: 'Redis, for --queue bullmq [default: QD_REDIS_URL, else redis://127.0.0.1:6379]' },
  'amqp-url': { type: 'string', describe: 'RabbitMQ for --queue rabbitmq [default: QD_AMQP_URL, else amqp://guest:guest@127.0.0.1:5672]' },
  'nats-url': { type: 'string', describe: 'NATS for --queue nats-jetstream [default: QD_NATS_URL, else nats://127.0.0.1:4222]' },
} as const;
