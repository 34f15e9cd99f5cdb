import path from 'node:path';
import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { systemClock } from '../../kernel/clock.js';
import type { Provisioned, ProvisionRequest } from '../../port/adapter.js';
import { QueueOptionError } from '../../port/queue-options.js';
import { ObservedRecord } from '../broker-record/observed-record.js';
import { consumerConfig } from './consumer-settings.js';
import { describeFiles, RECORD_FILE_ENV, SAGA_FILE_ENV } from './files.js';
import { MessageIndex } from './message-index.js';
import { CONSUMER_NAME, streamNameFor, subjectFor } from './names.js';
import { badOption, maxDeliverFor, natsOptions } from './options.js';
import { assertNatsReachable, maskNatsUrl, NATS_URL_ENV, openNats, resolveNatsUrl } from './server.js';

/** JetStream's own default ack wait: the consumer's until the first worker sets the drill's lease (ConsumerView.ensure). */
const JETSTREAM_DEFAULT_ACK_WAIT_MS = 30_000;

/** Deletes a drill's stream (and with it its consumer and every message left); none is fine. */
export async function deleteStream(url: string, stream: string): Promise<boolean> {
  const nc = await openNats(url, 'queue-drill teardown');
  try {
    const jsm = await jetstreamManager(nc);
    return await jsm.streams.delete(stream).catch((error: unknown) => {
      if (error instanceof Error && /stream not found/i.test(error.message)) return false;
      throw error;
    });
  } finally {
    await nc.close().catch(() => undefined);
  }
}

/**
 * Makes one drill's queue: a work-queue stream of its own (file storage, the
 * duplicate window asked for) capturing one subject, and its durable pull
 * consumer with explicit acks and max_deliver the largest budget of the
 * drill's jobs (ProvisionRequest.maxAttempts). The record and the saga file
 * are made beside the run, and named in the stream's description.
 */
export async function provisionNatsJetstream(request: ProvisionRequest): Promise<Provisioned> {
  const url = resolveNatsUrl(request.servers.natsUrl);
  const options = natsOptions(request.options ?? {});
  const bad = badOption(options);
  if (bad) throw new QueueOptionError(`queue option for nats-jetstream: ${bad}`);
  await assertNatsReachable(url);
  const stream = streamNameFor(request.runId);
  const files = { record: path.join(request.runDir, 'nats-record.sqlite'), saga: path.join(request.runDir, 'nats-saga.sqlite') };
  // Made now, so an observer finds the record however early it looks.
  ObservedRecord.open(files.record, systemClock()).close();
  MessageIndex.open(files.record).close();
  const maxDeliver = maxDeliverFor(options, request.maxAttempts);
  const nc = await openNats(url, 'queue-drill provision');
  const serverVersion = nc.info?.version ?? 'unknown';
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({
      name: stream,
      subjects: [subjectFor(stream)],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(options.duplicateWindowMs),
      description: describeFiles(request.runId, files),
    });
    try {
      await jsm.consumers.add(stream, consumerConfig(options.ackWaitMs > 0 ? options.ackWaitMs : JETSTREAM_DEFAULT_ACK_WAIT_MS, maxDeliver, []));
    } catch (error) {
      await jsm.streams.delete(stream).catch(() => false);
      throw error;
    }
  } finally {
    await nc.close().catch(() => undefined);
  }
  return {
    locator: stream,
    env: { [NATS_URL_ENV]: url, [RECORD_FILE_ENV]: files.record, [SAGA_FILE_ENV]: files.saga },
    where: `${maskNatsUrl(url)} (nats-server ${serverVersion}) stream ${stream} (consumer ${CONSUMER_NAME}, max_deliver ${maxDeliver})`,
    teardown: async ({ keep }) => {
      if (!keep) await deleteStream(url, stream);
    },
  };
}
