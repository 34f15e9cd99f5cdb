import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type Channel, type ChannelModel, type ConsumeMessage, connect } from 'amqplib';
import { afterEach, describe, expect, it } from 'vitest';
import { AMQP_URL, skipWithoutRabbitmq } from '../helpers/brokers.js';

/*
 * Probes of RabbitMQ 3.10 alone (amqplib 0.10, AMQP 0-9-1; no queue-drill
 * code): what the RabbitMQ column of a comparison rests on. A consumer that
 * "dies" is a connection or channel closed while it holds an unacked
 * delivery, or (R3) a real child process SIGSTOPped while it holds one, so
 * that only RabbitMQ's heartbeat check can find it gone. Every queue and
 * exchange a probe declares is named qd-probe.<random>.* and deleted after
 * it; every connection is closed and every child killed. Each fact cites the
 * line of the RabbitMQ documentation (rabbitmq-website, versioned_docs) it
 * checks.
 */

const PREFIX = 'qd-probe.';

/** Polls `check` every 25 ms until it holds, or fails after `ms` naming what it waited for. */
async function waitFor(what: string | (() => string), check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The x-delivery-count header a quorum queue puts on a redelivery, 0 where there is none (a first delivery). */
function deliveryCount(message: ConsumeMessage): number {
  return Number(message.properties.headers?.['x-delivery-count'] ?? 0);
}

/** A consumer with manual acks (prefetch 1) that collects what it is given. */
async function collect(channel: Channel, queue: string): Promise<ConsumeMessage[]> {
  const seen: ConsumeMessage[] = [];
  await channel.prefetch(1);
  await channel.consume(queue, (message) => message && seen.push(message), { noAck: false });
  return seen;
}

/** One probe's names, connections and children; `close` kills and closes them all and deletes what it declared. */
interface Probe {
  name(role: string): string;
  connection(): Promise<ChannelModel>;
  channel(): Promise<Channel>;
  quorum(name: string, args?: Record<string, unknown>): Promise<string>;
  classic(name: string, args?: Record<string, unknown>): Promise<string>;
  /** A fanout dead-letter exchange with one queue bound to it: [exchange, queue]. */
  deadLetters(): Promise<[string, string]>;
  child(script: string, env: Record<string, string>): ChildProcess;
  close(): Promise<void>;
}

function probe(): Probe {
  const id = randomUUID().slice(0, 8);
  const connections: ChannelModel[] = [];
  const queues: string[] = [];
  const exchanges: string[] = [];
  const children: ChildProcess[] = [];
  const self: Probe = {
    name: (role) => `${PREFIX}${id}.${role}`,
    async connection() {
      const connection = await connect(AMQP_URL);
      connection.on('error', () => {}); // a probe closes its connections; the assertions say what matters
      connections.push(connection);
      return connection;
    },
    async channel() {
      const channel = await (await self.connection()).createChannel();
      channel.on('error', () => {});
      return channel;
    },
    async quorum(name, args = {}) {
      queues.push(name);
      await (await self.channel()).assertQueue(name, { durable: true, arguments: { 'x-queue-type': 'quorum', ...args } });
      return name;
    },
    async classic(name, args = {}) {
      queues.push(name);
      await (await self.channel()).assertQueue(name, { durable: true, arguments: { 'x-queue-type': 'classic', ...args } });
      return name;
    },
    async deadLetters() {
      const exchange = self.name('dlx');
      const queue = self.name('dlq');
      exchanges.push(exchange);
      queues.push(queue);
      const channel = await self.channel();
      await channel.assertExchange(exchange, 'fanout', { durable: true });
      await channel.assertQueue(queue, { durable: true });
      await channel.bindQueue(queue, exchange, '');
      return [exchange, queue];
    },
    child(script, env) {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        cwd: join(import.meta.dirname, '../..'),
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      return child;
    },
    async close() {
      for (const child of children) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL'); // a stopped process dies of SIGKILL too
        await exited;
      }
      for (const connection of connections) await connection.close().catch(() => {});
      const admin = await connect(AMQP_URL);
      try {
        const channel = await admin.createChannel();
        for (const queue of queues) await channel.deleteQueue(queue);
        for (const exchange of exchanges) await channel.deleteExchange(exchange);
      } finally {
        await admin.close();
      }
    },
  };
  return self;
}

/*
 * The child of R3: a consumer (prefetch 1, manual acks) on a connection with a
 * 1 s heartbeat. It prints {"got":...} when it holds the message; on SIGCONT it
 * acks it, makes one round trip on the same channel (checkQueue) and prints
 * whether both went through.
 */
const STALE_HOLDER = `
import { createRequire } from 'node:module';
const amqp = createRequire(process.env.PROBE_PACKAGE)('amqplib');
const queue = process.env.PROBE_QUEUE;
const connection = await amqp.connect(process.env.PROBE_URL);
connection.on('error', () => {});
const channel = await connection.createChannel();
channel.on('error', () => {});
let held;
let woken = false;
async function wake() {
  if (!held || woken) return;
  woken = true;
  let ackError = null;
  let roundTripError = null;
  try { channel.ack(held); } catch (error) { ackError = String(error?.message ?? error); }
  try {
    await Promise.race([channel.checkQueue(queue), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 5 s')), 5000))]);
  } catch (error) { roundTripError = String(error?.message ?? error); }
  console.log(JSON.stringify({ acked: ackError === null && roundTripError === null, ackError, roundTripError }));
  process.exit(0);
}
process.on('SIGCONT', wake);
// Keeps the process alive once RabbitMQ has closed its connection: a signal listener alone does not, and the
// process would exit (0, silently) before its SIGCONT listener runs if the socket's close came first.
setInterval(() => {}, 60_000);
await channel.prefetch(1);
await channel.consume(queue, (message) => {
  if (!message || held) return;
  held = message;
  console.log(JSON.stringify({ got: true, redelivered: message.fields.redelivered }));
}, { noAck: false });
`;

describe.skipIf(skipWithoutRabbitmq('the RabbitMQ probe'))('RabbitMQ 3.10 alone', () => {
  let p: Probe | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  });

  it('R1: a delivery whose connection closes unacked is redelivered at once to the next consumer, redelivered and its x-delivery-count one higher', async () => {
    // confirms.md, "Automatic Requeueing": "When manual acknowledgements are used, any delivery (message) that was not acked
    // is automatically requeued when the channel (or connection) on which the delivery happened is closed." ... "Redeliveries
    // will have a special boolean property, `redeliver`, set to `true` by RabbitMQ."
    // quorum-queues/index.md, "Poison Message Handling": "Quorum queues keep track of the number of unsuccessful (re)delivery
    // attempts and expose it in the "x-delivery-count" header that is included with any redelivered message."
    p = probe();
    const queue = await p.quorum(p.name('work'));
    const publisher = await p.channel();
    publisher.sendToQueue(queue, Buffer.from('r1'), { persistent: true });

    const first = await p.connection();
    const held = await collect(await first.createChannel(), queue);
    await waitFor('the first consumer to get the message', () => held.length === 1);
    const next = await collect(await p.channel(), queue);

    const closedAt = Date.now();
    await first.close();
    await waitFor('the next consumer to get the message', () => next.length === 1);
    const ms = Date.now() - closedAt;
    console.log(`R1: redelivered ${ms} ms after the holder's connection closed`);

    const [before, after] = [held[0]!, next[0]!];
    expect(before.fields.redelivered).toBe(false);
    expect(after.fields.redelivered).toBe(true);
    expect(after.content.toString()).toBe('r1');
    expect(deliveryCount(after)).toBe(deliveryCount(before) + 1);
    expect(ms).toBeLessThan(2000);
  });

  it('R2: a quorum queue with x-delivery-limit 2 delivers a message 3 times, then dead-letters it with reason delivery_limit', async () => {
    // quorum-queues/index.md, "Poison Message Handling": "When a message has been redelivered more times than the limit the
    // message will be dropped (removed) or dead-lettered (if a DLX is configured)."
    // dlx.md: "`delivery_limit`: the message is returned more times than the limit (set by policy argument delivery-limit of
    // quorum queues)." ... "Three top-level headers are added for the very first dead-lettering event. They are
    // `x-first-death-reason` ..."
    const LIMIT = 2;
    p = probe();
    const [dlx, dlq] = await p.deadLetters();
    const queue = await p.quorum(p.name('work'), { 'x-delivery-limit': LIMIT, 'x-dead-letter-exchange': dlx });
    const channel = await p.channel();
    const seen: ConsumeMessage[] = [];
    await channel.prefetch(1);
    const { consumerTag } = await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        seen.push(message);
        channel.nack(message, false, true); // give it back, as a failed attempt
      },
      { noAck: false },
    );
    channel.sendToQueue(queue, Buffer.from('r2'), { persistent: true });

    await waitFor('the message in the dead-letter queue', async () => (await channel.checkQueue(dlq)).messageCount === 1);
    await channel.cancel(consumerTag);
    console.log(
      `R2: x-delivery-count of each delivery: ${seen.map((message) => message.properties.headers?.['x-delivery-count'] ?? 'none').join(', ')}`,
    );
    expect(seen.map((message) => [message.fields.redelivered, deliveryCount(message)])).toEqual([
      [false, 0],
      [true, 1],
      [true, 2],
    ]);
    expect(seen).toHaveLength(LIMIT + 1);
    expect((await channel.checkQueue(queue)).messageCount).toBe(0);

    const dead = await channel.get(dlq, { noAck: true });
    if (dead === false) throw new Error('the dead-letter queue was empty');
    expect(dead.content.toString()).toBe('r2');
    expect(dead.properties.headers?.['x-first-death-reason']).toBe('delivery_limit');
    expect(dead.properties.headers?.['x-first-death-queue']).toBe(queue);
    expect(dead.properties.headers?.['x-death']).toMatchObject([{ reason: 'delivery_limit', queue, count: 1 }]);
  });

  it("R3: RabbitMQ fences a SIGSTOPped holder by closing its silent connection: the message goes to another consumer, and the holder's late ack never lands", {
    timeout: 30_000,
  }, async () => {
    // heartbeats.md: "Heartbeat frames are sent about every timeout / 2 seconds. After two missed heartbeats, the peer is
    // considered to be unreachable. Different clients manifest this differently but the TCP connection will be closed."
    // confirms.md, "Automatic Requeueing": "This includes TCP connection loss by clients, consumer application (process)
    // failures ..." and "Note that it takes a period of time to detect an unavailable client."
    // confirms.md, "Client Errors": "Deliveries must be acknowledged on the same channel." The stale holder's channel is
    // gone with its connection, so its late ack has nowhere to land.
    p = probe();
    const queue = await p.quorum(p.name('work'));
    const myConnection = await p.connection();
    const channel = await myConnection.createChannel();
    channel.sendToQueue(queue, Buffer.from('r3'), { persistent: true });

    const url = new URL(AMQP_URL);
    url.searchParams.set('heartbeat', '1');
    const child = p.child(STALE_HOLDER, {
      PROBE_URL: url.toString(),
      PROBE_QUEUE: queue,
      PROBE_PACKAGE: join(import.meta.dirname, '../../package.json'),
    });
    const lines: Array<Record<string, unknown>> = [];
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    createInterface({ input: child.stdout! }).on('line', (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
    await waitFor(
      () => `the child to get the message (its stderr: ${stderr})`,
      () => lines.length === 1,
    );
    expect(lines[0]).toEqual({ got: true, redelivered: false });

    const mine = await collect(channel, queue);
    const stoppedAt = Date.now();
    child.kill('SIGSTOP');
    await waitFor('RabbitMQ to redeliver the stopped holder’s message', () => mine.length === 1, 20_000);
    const ms = Date.now() - stoppedAt;
    console.log(`R3: redelivered to another consumer ${ms} ms after the holder was SIGSTOPped (heartbeat 1 s)`);
    expect(mine[0]!.fields.redelivered).toBe(true);
    expect(deliveryCount(mine[0]!)).toBe(1);
    expect(ms).toBeLessThan(10_000);

    child.kill('SIGCONT');
    await waitFor(
      () => `the woken holder to report its ack (its stderr: ${stderr})`,
      () => lines.length === 2,
    );
    console.log(`R3: the woken holder: ${JSON.stringify(lines[1])}`);
    expect(lines[1]).toMatchObject({ acked: false });
    const late = lines[1] as { ackError: string | null; roundTripError: string | null };
    expect(late.ackError ?? late.roundTripError).toBeTruthy();

    channel.ack(mine[0]!);
    const after = await channel.checkQueue(queue); // after the ack on the same channel, so the ack has landed
    expect(after).toMatchObject({ messageCount: 0, consumerCount: 1 });
    // Closing my connection would put back anything unacked on it; nothing comes back.
    const other = await p.channel();
    await myConnection.close();
    await waitFor('the queue to drop my consumer', async () => (await other.checkQueue(queue)).consumerCount === 0);
    expect((await other.checkQueue(queue)).messageCount).toBe(0);
    expect(await other.get(queue)).toBe(false);
  });

  it('R4: RabbitMQ does not dedupe: two confirmed publishes with the same messageId are two messages', async () => {
    // publishers/index.md, "Message Properties": "Message ID | String | Arbitrary message ID" (an application field; RabbitMQ
    // does not act on it), and "Messages that were not confirmed should be considered undelivered after a period of time.
    // Those messages can be republished if it's safe to do so for the application."
    p = probe();
    const queue = await p.quorum(p.name('work'));
    const channel = await (await p.connection()).createConfirmChannel();
    channel.on('error', () => {});
    const messageId = randomUUID();
    channel.sendToQueue(queue, Buffer.from('r4'), { persistent: true, messageId });
    channel.sendToQueue(queue, Buffer.from('r4'), { persistent: true, messageId });
    await channel.waitForConfirms();
    expect((await channel.checkQueue(queue)).messageCount).toBe(2);
  });

  it('R5: a classic queue counts no deliveries: 5 redeliveries after 5 channel closes carry no x-delivery-count, and nothing dead-letters it', async () => {
    // quorum-queues/index.md, "Feature Matrix": "| Poison message handling | no | yes |" (classic queues | quorum queues), and
    // "Some features, such as poison message handling, are specific to quorum queues."
    // dlx.md: messages are dead-lettered when rejected without requeue, expired, over a length limit, or "returned more times
    // to a quorum queue than the delivery-limit": a classic queue's returns are none of these.
    const CLOSES = 5;
    p = probe();
    const [dlx, dlq] = await p.deadLetters();
    // Nor can one be asked for: RabbitMQ 3.10 refuses a delivery limit on a classic queue.
    await expect(p.classic(p.name('limited'), { 'x-delivery-limit': CLOSES, 'x-dead-letter-exchange': dlx })).rejects.toThrow(
      "PRECONDITION_FAILED - invalid arg 'x-delivery-limit'",
    );
    const queue = await p.classic(p.name('work'), { 'x-dead-letter-exchange': dlx });
    const connection = await p.connection();
    const publisher = await connection.createChannel();
    publisher.sendToQueue(queue, Buffer.from('r5'), { persistent: true });

    const deliveries: ConsumeMessage[] = [];
    for (let attempt = 0; attempt <= CLOSES; attempt++) {
      const channel = await connection.createChannel();
      channel.on('error', () => {});
      const seen = await collect(channel, queue);
      await waitFor(`delivery ${attempt + 1}`, () => seen.length === 1);
      deliveries.push(seen[0]!);
      if (attempt < CLOSES) await channel.close();
      else channel.ack(seen[0]!);
    }
    console.log(`R5: ${deliveries.length} deliveries, redelivered: ${deliveries.map((message) => message.fields.redelivered).join(', ')}`);
    expect(deliveries.map((message) => message.fields.redelivered)).toEqual([false, true, true, true, true, true]);
    for (const message of deliveries) expect(message.properties.headers ?? {}).not.toHaveProperty('x-delivery-count');
    expect(deliveries.every((message) => message.content.toString() === 'r5')).toBe(true);
    const check = await publisher.checkQueue(dlq);
    expect(check.messageCount).toBe(0);
  });
});
