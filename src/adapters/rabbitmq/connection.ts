import { randomUUID } from 'node:crypto';
import { systemClock } from '../../kernel/clock.js';
import type { ConnectOptions, EnqueueRequest, EnqueueResult, QueueConnection } from '../../port/adapter.js';
import { EnqueueError } from '../../port/adapter.js';
import { queueOptionsFromEnv } from '../../port/queue-options.js';
import { ObservedRecord } from '../broker-record/observed-record.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { resolveAmqpUrl } from './amqp.js';
import { noteDeadLetters } from './dead-letters.js';
import { humanOps } from './human.js';
import { BrokerLink } from './link.js';
import { manualOps } from './manual.js';
import { messageFor } from './message.js';
import { queuesOf } from './names.js';
import { heartbeatFor, rabbitmqOptions } from './options.js';
import { RECORD_FILE_ENV, SAGA_FILE_ENV } from './provision.js';
import { runWorker, type WorkContext } from './work-loop.js';

/** A file the provisioned queue's environment names, or a clear error for a process not given it. */
function fileFrom(env: Readonly<Record<string, string | undefined>>, name: string, locator: string): string {
  const file = env[name];
  if (!file) throw new Error(`no ${name} for RabbitMQ queue ${locator}: provision sets it in the drill's environment`);
  return file;
}

/**
 * Publishes the job as a persistent message with a fresh id, confirmed
 * (publisher confirms), then writes it down. RabbitMQ dedupes nothing: a key
 * published twice is two jobs (the adapter says so, and the drills that
 * check dedupe are not supported here). A publish the broker did not confirm
 * may or may not have been stored: indefinite.
 */
async function enqueue(link: BrokerLink, work: string, record: ObservedRecord, request: EnqueueRequest): Promise<EnqueueResult> {
  const job = { id: randomUUID(), key: request.key, action: request.action, payload: request.payload, maxAttempts: request.maxAttempts };
  const message = messageFor(job, 0);
  try {
    const { publish } = await link.channels();
    publish.sendToQueue(work, message.content, message.options);
    await publish.waitForConfirms();
  } catch (error) {
    throw new EnqueueError(false, `RabbitMQ did not confirm the publish: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  record.addJob(job, 'producer');
  return { outcome: 'created', jobId: job.id };
}

/** One process's connection to a drill's RabbitMQ queues, named by the prefix `locator`. */
export async function connectRabbitmq(locator: string, options: ConnectOptions): Promise<QueueConnection> {
  const env = { ...process.env, ...options.env };
  const url = resolveAmqpUrl(options.servers?.amqpUrl ?? env.QD_AMQP_URL);
  const queueOptions = rabbitmqOptions(options.queueOptions ?? queueOptionsFromEnv());
  const queues = queuesOf(locator);
  const link = new BrokerLink(url, heartbeatFor(queueOptions, options.leaseMs));
  const record = ObservedRecord.open(fileFrom(env, RECORD_FILE_ENV, locator), systemClock());
  const saga = FileSagaStore.open(fileFrom(env, SAGA_FILE_ENV, locator), systemClock());
  try {
    // Fails fast, naming the queue, when it is not there (never provisioned, or torn down).
    await (await link.channels()).read.checkQueue(queues.work);
  } catch (error) {
    await link.close();
    record.close();
    saga.close();
    throw new Error(`RabbitMQ queue ${queues.work} is not there: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const context: WorkContext = { link, queues, queueType: queueOptions.queueType, prefetch: queueOptions.prefetch, record, saga };
  const manual = manualOps(context);
  return {
    enqueue: (request) => enqueue(link, queues.work, record, request),
    work: (handler, work) => runWorker(context, handler, work),
    async snapshot(snapshotOptions) {
      // What RabbitMQ dead-lettered on its own is written down first; a broker away (restarting) leaves the record as it is.
      await noteDeadLetters(link, queues, record).catch(() => 0);
      return record.snapshot(snapshotOptions);
    },
    async progress() {
      const deadLetters = await link
        .channels()
        .then(({ read }) => read.checkQueue(queues.deadLetters))
        .then((q) => q.messageCount)
        .catch(() => -1);
      return `${record.progress()}/${deadLetters}`;
    },
    saga,
    manual,
    takeover: manual,
    human: humanOps(context),
    async close() {
      await manual.close();
      await link.close();
      record.close();
      saga.close();
    },
  };
}
