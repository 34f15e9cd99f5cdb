import { randomInt } from '../../kernel/random.js';
import { storableError } from '../../kernel/redact.js';
import { type ConnectOptions, EnqueueError, type QueueConnection } from '../../port/adapter.js';
import type { TxEntry, Writer } from '../../port/checkpoint.js';
import { queueOptionsFromEnv } from '../../port/queue-options.js';
import { resolveServers } from '../../port/servers.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { ChildChannel, DEFAULT_REQUEST_TIMEOUT_MS } from './child-channel.js';
import { childSagaStore } from './child-saga.js';
import { type ChildHello, helloOn, offers } from './hello.js';
import { optionalParts } from './optional-parts.js';
import { ProcessWork } from './process-work.js';
import { ProtocolError, record, text, toJob, toTransition } from './protocol.js';
import { sagaFileOf, serversOnTheWire } from './saga-file.js';

/** Writes one JSON log line on stderr, where a drill process's own lines about its child belong. */
function logToStderr(line: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), source: 'process-adapter', ...line })}\n`);
}

/**
 * How long a drill process waits for its child's answer: 25 leases, and never
 * under DEFAULT_REQUEST_TIMEOUT_MS (the shipped 400 ms lease keeps 10 s). The
 * lease is what --time-scale stretches on a busy machine, where a starved child
 * answers late too; a fixed timeout would call a sound but slow queue stuck
 * (no_answer) exactly when the drill was told to be patient.
 */
export function requestTimeoutFor(leaseMs: number): number {
  return Math.max(DEFAULT_REQUEST_TIMEOUT_MS, 25 * leaseMs);
}

/** Hears the child's hello and opens it on the locator with this process's settings; the channel is closed if either fails. */
async function openChild(channel: ChildChannel, argv: readonly string[], locator: string, options: ConnectOptions): Promise<ChildHello> {
  try {
    // Both sent at once (the child answers in order): one round trip less for every drill process that starts.
    const said = helloOn(channel, argv);
    const opened = channel.request('open', {
      store: locator,
      // Protocol 2: where a queue on a server lives (a protocol 1 child reads no field it does not know).
      servers: serversOnTheWire(resolveServers(options.servers ?? {})),
      lease_ms: options.leaseMs,
      skew_margin_ms: options.skewMarginMs,
      retry_delay: { base_ms: options.retryDelay.baseMs, cap_ms: options.retryDelay.capMs, jitter_ms: options.retryDelay.jitterMs },
      // The child's jitter from the drill's seeded source, so a run can be replayed.
      seed: randomInt(options.random, 0, 2 ** 31 - 1),
      // Protocol 2: the queue's own options, as the drill resolved them (defaults filled in).
      queue_options: options.queueOptions ?? queueOptionsFromEnv(),
    });
    const [hello] = await Promise.all([said, opened]);
    return hello;
  } catch (error) {
    await channel.close();
    throw error;
  }
}

/**
 * One drill process's connection to a `process:` queue: a child of its own,
 * opened on the locator with this process's lease, retry policy and clock;
 * the saga's checkpoints in the child's store where it keeps them (in-queue),
 * else in the file beside the queue (FileSagaStore).
 */
export async function connectProcess(argv: readonly string[], locator: string, options: ConnectOptions): Promise<QueueConnection> {
  let work: ProcessWork | null = null;
  const channel = new ChildChannel(argv, {
    now: () => options.clock.now(),
    requestTimeoutMs: requestTimeoutFor(options.leaseMs),
    onEvent: (event) => {
      if (event.event === 'deliver' && work) work.onDeliver(event.delivery);
      else logToStderr({ event: 'protocol-violation', what: `unexpected event ${JSON.stringify(event.event)}${work ? '' : ' while not working'}` });
    },
    onViolation: (what) => logToStderr({ event: 'protocol-violation', what }),
  });
  const hello = await openChild(channel, argv, locator, options);
  const inQueue = hello.capabilities.sagaStore === 'in-queue';
  const file = inQueue ? null : FileSagaStore.open(sagaFileOf(locator, { ...process.env, ...options.env }), options.clock);
  const saga = file ?? childSagaStore(channel);
  const appendAs = file ? async (writer: Writer, entry: TxEntry) => file.append(writer, entry) : null;
  return {
    async enqueue(request) {
      try {
        const body = await channel.request('enqueue', {
          key: request.key,
          action: request.action,
          payload: request.payload,
          max_attempts: request.maxAttempts,
        });
        const outcome = body.outcome;
        if (outcome !== 'created' && outcome !== 'deduplicated')
          throw new ProtocolError('malformed_answer', `outcome ${JSON.stringify(outcome)}`, false, 'enqueue');
        return { outcome, jobId: text(body, 'job_id', 'the answer to enqueue') };
      } catch (error) {
        // Only a `fail` answer says the job was certainly not made; anything else may have made it.
        const definite = error instanceof ProtocolError && error.definite;
        throw new EnqueueError(definite, `enqueue through the child failed: ${storableError(error)}`, { cause: error });
      }
    },
    async work(handler, workOptions) {
      if (work) throw new Error('this connection already hosts a worker');
      work = new ProcessWork(channel, saga, handler, { ...workOptions, leaseMs: options.leaseMs, now: () => options.clock.now() });
      try {
        return await work.run();
      } finally {
        work = null;
      }
    },
    async snapshot(snapshotOptions) {
      const body = await channel.request('snapshot', { history: snapshotOptions?.history !== false });
      const jobs = body.jobs;
      const history = body.history ?? [];
      if (!Array.isArray(jobs) || !Array.isArray(history))
        throw new ProtocolError('malformed_answer', 'jobs and history must be lists', false, 'snapshot');
      return {
        jobs: jobs.map((job, i) => toJob(job, `snapshot.jobs[${i}]`)),
        history: snapshotOptions?.history === false ? [] : history.map((entry, i) => toTransition(entry, `snapshot.history[${i}]`)),
      };
    },
    async progress() {
      const body = await channel.request('progress');
      const progress = text(record(body, 'progress'), 'progress', 'the answer to progress');
      // Beside the run, the checkpoints count too: a plan that writes them is making progress before its job changes state.
      return file ? `${progress}:${(await file.rows()).length}` : progress;
    },
    saga,
    ...optionalParts(channel, hello, appendAs, offers),
    async close() {
      await channel.close();
      file?.close();
    },
  };
}
