import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Random } from '../../kernel/random.js';
import type { RetryDelayPolicy } from '../../port/adapter.js';
import type { SagaStore } from '../../port/checkpoint.js';
import type { ObservedRecord } from '../broker-record/observed-record.js';
import type { ConsumerView } from './consumer-settings.js';
import type { MessageIndex } from './message-index.js';

/** What every part of one process's connection to a drill's stream shares: the seam each module takes. */
export interface NatsContext {
  nc: NatsConnection;
  jsm: JetStreamManager;
  js: JetStreamClient;
  stream: string;
  subject: string;
  /** The drill's record of its jobs (the history the judge reads). */
  record: ObservedRecord;
  index: MessageIndex;
  saga: SagaStore;
  consumer: ConsumerView;
  skewMarginMs: number;
  retryDelay: RetryDelayPolicy;
  random: Random;
  /** Now, on the clock the record and the leases run on (this machine's, which JetStream's server shares). */
  now(): number;
}
