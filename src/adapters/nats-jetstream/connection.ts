import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { systemClock } from '../../kernel/clock.js';
import type { ConnectOptions, QueueConnection } from '../../port/adapter.js';
import { queueOptionsFromEnv } from '../../port/queue-options.js';
import { ObservedRecord } from '../broker-record/observed-record.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { ConsumerView } from './consumer-settings.js';
import type { NatsContext } from './context.js';
import { enqueueJetStream } from './enqueue.js';
import { ExhaustedSweeper } from './exhausted.js';
import { drillFiles } from './files.js';
import { humanOps } from './human.js';
import { manualOps } from './manual.js';
import { MessageIndex } from './message-index.js';
import { subjectFor } from './names.js';
import { natsOptions } from './options.js';
import { openNats, resolveNatsUrl } from './server.js';
import { takeoverOps } from './takeover.js';
import { runWorker } from './work-loop.js';

/** How long a JetStream API call (stream and consumer info, a message read) waits for its answer. */
const API_TIMEOUT_MS = 5_000;

/**
 * One process's connection to a drill's stream `stream`: one NATS connection
 * for everything it does, the drill's record of its jobs and its saga file
 * (both beside the run). The record's times and every lease are on this
 * machine's clock, which JetStream's server shares (capabilities.clock
 * 'server'): a worker's skewed drill clock plays no part in JetStream.
 */
export async function connectNatsJetstream(stream: string, options: ConnectOptions): Promise<QueueConnection> {
  const env = { ...process.env, ...options.env };
  const url = resolveNatsUrl(options.servers?.natsUrl, env);
  const nc = await openNats(url, `queue-drill ${process.pid}`);
  let opened: { record: ObservedRecord; index: MessageIndex; saga: FileSagaStore } | undefined;
  try {
    const jsm = await jetstreamManager(nc, { timeout: API_TIMEOUT_MS });
    const files = await drillFiles(env, jsm, stream);
    const clock = systemClock();
    const record = ObservedRecord.open(files.record, clock);
    opened = { record, index: MessageIndex.open(files.record), saga: FileSagaStore.open(files.saga, clock) };
    const queueOptions = natsOptions(options.queueOptions ?? queueOptionsFromEnv(env));
    const ctx: NatsContext = {
      nc,
      jsm,
      js: jetstream(nc, { timeout: API_TIMEOUT_MS }),
      stream,
      subject: subjectFor(stream),
      ...opened,
      consumer: new ConsumerView(jsm, stream, {
        ackWaitMs: queueOptions.ackWaitMs > 0 ? queueOptions.ackWaitMs : options.leaseMs,
        backoff: queueOptions.backoff,
      }),
      skewMarginMs: options.skewMarginMs,
      retryDelay: options.retryDelay,
      random: options.random,
      now: () => clock.now(),
    };
    return connection(ctx, opened.saga);
  } catch (error) {
    opened?.record.close();
    opened?.index.close();
    opened?.saga.close();
    await nc.close().catch(() => undefined);
    throw error;
  }
}

function connection(ctx: NatsContext, saga: FileSagaStore): QueueConnection {
  const sweeper = new ExhaustedSweeper(ctx);
  let closed: Promise<void> | undefined;
  return {
    enqueue: (request) => enqueueJetStream(ctx, request),
    work: (handler, work) => runWorker(ctx, handler, work, () => sweeper.maybe(ctx.record.snapshot({ history: false }).jobs)),
    async snapshot(snapshotOptions) {
      const snapshot = ctx.record.snapshot(snapshotOptions);
      // The harness reads this every tick: a message JetStream gave up on is found here (seen by the next read).
      sweeper.maybe(snapshot.jobs);
      return { ...snapshot, jobs: withRenewals(ctx, snapshot.jobs) };
    },
    progress: async () => ctx.record.progress(),
    saga: ctx.saga,
    manual: manualOps(ctx),
    takeover: takeoverOps(ctx, sweeper),
    human: humanOps(ctx),
    close() {
      closed ??= (async () => {
        await sweeper.settled();
        await closeNats(ctx.nc);
        ctx.record.close();
        ctx.index.close();
        saga.close();
      })();
      return closed;
    },
  };
}

/** Each running job with its lease's end as its holder's in-progress acks moved it (kept beside the record, not in it). */
function withRenewals(ctx: NatsContext, jobs: ReturnType<ObservedRecord['snapshot']>['jobs']) {
  if (!jobs.some((job) => job.status === 'running')) return jobs;
  const renewals = ctx.index.renewals();
  return jobs.map((job) => {
    const renewed = renewals.get(job.id);
    if (job.status !== 'running' || !renewed || renewed.epoch !== job.epoch) return job;
    return job.leaseUntil !== null && job.leaseUntil >= renewed.leaseUntil ? job : { ...job, leaseUntil: renewed.leaseUntil };
  });
}

/** Closes the connection (never waiting on a server that is away: no flush). */
async function closeNats(nc: NatsConnection): Promise<void> {
  if (!nc.isClosed()) await nc.close().catch(() => undefined);
}
