import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { QueueAdapter } from '../../port/adapter.js';
import { NATS_JETSTREAM_CAPABILITIES } from './capabilities.js';
import { fitNatsJetstream, MIN_ACK_WAIT_MS } from './fit.js';
import { NATS_JETSTREAM_OPTIONS } from './options.js';

/*
 * The NATS client is loaded only when this queue is used: every command loads
 * the registry, and a process drilling another queue should not pay for it.
 */
const serverModule = () => import('./server.js');

/** The installed JetStream client's own version, read from its package (whose exports do not include package.json). */
function clientVersion(): string {
  try {
    const main = createRequire(import.meta.url).resolve('@nats-io/jetstream');
    return (JSON.parse(readFileSync(join(dirname(main), '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * NATS JetStream as a work queue, as its users run one: a work-queue stream
 * per drill, a durable pull consumer whose ack wait is the lease and whose
 * max_deliver bounds attempts, Nats-Msg-Id dedupe within the duplicate
 * window, in-progress acks as the heartbeat, terminated and exhausted
 * messages as review. JetStream keeps no job table or history: the drill's
 * processes record what it did (src/adapters/broker-record/). The stream is
 * deleted after the run unless kept; the server is --nats-url, else
 * QD_NATS_URL, else the scenario's nats_url, else nats://127.0.0.1:4222.
 */
export const natsJetstreamAdapter: QueueAdapter = {
  name: 'nats-jetstream',
  description:
    'NATS JetStream: a work-queue stream and a durable pull consumer per drill, ack_wait as the lease, max_deliver as the attempt bound, ' +
    'Nats-Msg-Id dedupe within the duplicate window',
  // Read when asked (a report, `queues`), not when the registry loads: every drill process loads it.
  get version() {
    return `@nats-io/jetstream ${clientVersion()}`;
  },
  options: NATS_JETSTREAM_OPTIONS,
  capabilities: NATS_JETSTREAM_CAPABILITIES,
  soundness: 'observed',
  locatorKind: 'name',
  needs: ['natsUrl'],
  async preflight(servers) {
    const { assertNatsReachable, resolveNatsUrl } = await serverModule();
    await assertNatsReachable(resolveNatsUrl(servers.natsUrl));
  },
  provision: async (request) => (await import('./provision.js')).provisionNatsJetstream(request),
  connect: async (locator, options) => (await import('./connection.js')).connectNatsJetstream(locator, options),
  async restartServer(servers) {
    const { resolveNatsUrl } = await serverModule();
    return (await import('./restart-nats.js')).restartNats(resolveNatsUrl(servers.natsUrl));
  },
  fit: (demands) => fitNatsJetstream(demands),
  shortestLease: {
    ms: MIN_ACK_WAIT_MS,
    why: `the worker renews JetStream's ack wait with an in-progress ack every third of it, which needs at least ${MIN_ACK_WAIT_MS} ms on a loaded machine`,
  },
};
