import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { type Clock, utc } from '../../kernel/clock.js';
import type { Random } from '../../kernel/random.js';
import { framersFor, type ReplyFramer, type RequestFramer, type WireProtocol, type WireRequest } from './wire-framing.js';

/*
 * A TCP proxy on 127.0.0.1 between one drill process and one server its
 * queue uses (PostgreSQL, Redis, a broker), through which the harness makes
 * the network fail for that process alone: a partition (nothing passes,
 * nothing is closed: the bytes are held, as a network holds them until it
 * heals and TCP sends them again), latency (every chunk delayed, in order,
 * jittered from the seed), a reset (every connection closed with RST). Each
 * change and each connection is an event for the drill's timeline, with the
 * bytes held or delivered. Given the server's protocol (PostgreSQL's, Redis's
 * RESP), it also frames each connection's requests and replies, so it can
 * swallow the reply to one named request (a COMMIT, BullMQ's moveToFinished)
 * and cut that connection: the request ran, and the client never hears of it.
 */

/** Where the proxy forwards to. */
export interface ProxyTarget {
  host: string;
  port: number;
}

/** One thing the proxy did, for the timeline. */
export interface ProxyEvent {
  at: string;
  kind: 'connected' | 'closed' | 'partitioned' | 'healed' | 'latency' | 'reset' | 'reply-dropped';
  /** The connection it concerns (numbered from 1 in the order they came), or null for every one. */
  connection: number | null;
  detail: string;
}

export interface FaultProxyOptions {
  clock: Clock;
  /** The jitter's source (the drill's seed). */
  random: Random;
  onEvent?: (event: ProxyEvent) => void;
  /** The server's wire protocol, for dropReply: its requests and replies are framed. @default none: chunks only */
  protocol?: WireProtocol;
  /** Script names by SHA-1, so an EVALSHA is named by its script (RESP). */
  scripts?: ReadonlyMap<string, string>;
}

/** A drop armed on the proxy: the next request whose name matches has its reply swallowed. */
interface ArmedDrop {
  matches: (request: WireRequest) => boolean;
  dropped: (what: string) => void;
}

type Direction = 'to-server' | 'to-client';

/** One direction of one connection: the chunks not yet written, each with the time it may go. */
class Lane {
  private readonly queue: Array<{ chunk: Buffer; due: number }> = [];
  private timer: NodeJS.Timeout | undefined;
  /** Its sender closed: once every chunk before the close is written, the close goes through too. */
  private ending = false;
  held = 0;

  constructor(
    private readonly out: Socket,
    private readonly proxy: FaultProxy,
  ) {}

  push(chunk: Buffer): void {
    const last = this.queue.at(-1)?.due ?? 0;
    // In order: a chunk never overtakes the one before it, whatever its own delay.
    this.queue.push({ chunk, due: Math.max(last, Date.now() + this.proxy.delayMs()) });
    this.pump();
  }

  /** Writes every chunk that is due, unless the link is partitioned; waits for the next one otherwise. */
  pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.proxy.partitioned) {
      this.held = this.queue.reduce((sum, item) => sum + item.chunk.length, 0);
      return;
    }
    this.held = 0;
    const now = Date.now();
    while (this.queue.length > 0 && this.queue[0]!.due <= now) {
      if (!this.out.destroyed) this.out.write(this.queue.shift()!.chunk);
      else this.queue.shift();
    }
    const next = this.queue[0];
    if (next) this.timer = setTimeout(() => this.pump(), next.due - now);
    else if (this.ending && !this.out.destroyed) this.out.end();
  }

  /** The sender closed its side (FIN): passed on after what it sent before. */
  finish(): void {
    this.ending = true;
    this.pump();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }
}

/** A client's connection and the proxy's own to the server, and the two lanes between them. */
interface Link {
  id: number;
  client: Socket;
  server: Socket;
  lanes: Record<Direction, Lane>;
  /** The requests and replies framed (a protocol given), how many of each have ended, and the request whose reply is to be swallowed. */
  wire?: {
    requests: RequestFramer;
    replies: ReplyFramer;
    sent: number;
    answered: number;
    target?: { index: number; name: string; swallowed: number } & ArmedDrop;
  };
}

export class FaultProxy {
  private readonly links = new Set<Link>();
  private count = 0;
  private latency = { ms: 0, jitterMs: 0 };
  private healTimer: NodeJS.Timeout | undefined;
  private drop: ArmedDrop | undefined;
  partitioned = false;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly target: ProxyTarget,
    private readonly options: FaultProxyOptions,
  ) {}

  /** Starts a proxy to `target` on a free port of 127.0.0.1. */
  static async start(target: ProxyTarget, options: FaultProxyOptions): Promise<FaultProxy> {
    const server = createServer({ noDelay: true, allowHalfOpen: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('the fault proxy has no TCP port');
    const proxy = new FaultProxy(server, address.port, target, options);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  private emit(kind: ProxyEvent['kind'], connection: number | null, detail: string): void {
    this.options.onEvent?.({ at: utc(this.options.clock.now()), kind, connection, detail });
  }

  /** The delay of the next chunk: the latency, plus up to its jitter from the seed. */
  delayMs(): number {
    const { ms, jitterMs } = this.latency;
    return ms + (jitterMs > 0 ? Math.floor(this.options.random.next() * (jitterMs + 1)) : 0);
  }

  private accept(client: Socket): void {
    const id = ++this.count;
    client.setNoDelay(true);
    const server = createConnection({ host: this.target.host, port: this.target.port, noDelay: true, allowHalfOpen: true });
    const link: Link = { id, client, server, lanes: { 'to-server': new Lane(server, this), 'to-client': new Lane(client, this) } };
    const { protocol, scripts } = this.options;
    if (protocol) link.wire = { ...framersFor(protocol, scripts), sent: 0, answered: 0 };
    this.links.add(link);
    this.emit('connected', id, `to ${this.target.host}:${this.target.port}`);
    client.on('data', (chunk: Buffer) => {
      this.requested(link, chunk);
      link.lanes['to-server'].push(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      const passed = this.answered(link, chunk);
      if (passed.length > 0) link.lanes['to-client'].push(passed);
    });
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      this.links.delete(link);
      link.lanes['to-server'].stop();
      link.lanes['to-client'].stop();
      client.destroy();
      server.destroy();
      this.emit('closed', id, why);
    };
    // A side that closes (FIN) closes the other once what it sent before is through: a partition holds the close too.
    client.on('end', () => link.lanes['to-server'].finish());
    server.on('end', () => link.lanes['to-client'].finish());
    client.on('error', (error) => end(`the client's socket failed: ${error.message}`));
    server.on('error', (error) => end(`the server's socket failed: ${error.message}`));
    client.on('close', () => end('the client closed'));
    server.on('close', () => end('the server closed'));
  }

  /** Frames the client's requests; the first that an armed drop matches becomes the one whose reply is swallowed. */
  private requested(link: Link, chunk: Buffer): void {
    const wire = link.wire;
    if (!wire) return;
    for (const request of wire.requests.push(chunk)) {
      const index = wire.sent++;
      if (this.drop && wire.target === undefined && this.drop.matches(request)) {
        wire.target = { index, name: request.name, swallowed: 0, ...this.drop };
        this.drop = undefined;
      }
    }
  }

  /** What of the server's chunk goes on to the client: all of it, but the reply to a targeted request (and what follows it). */
  private answered(link: Link, chunk: Buffer): Buffer {
    const wire = link.wire;
    if (!wire) return chunk;
    const target = wire.target;
    let passed = target && wire.answered >= target.index ? 0 : chunk.length;
    let complete = false;
    for (const end of wire.replies.push(chunk)) {
      const index = wire.answered++;
      if (target && index === target.index - 1) passed = end;
      if (target && index === target.index) complete = true;
    }
    if (!target) return chunk;
    target.swallowed += chunk.length - passed;
    if (complete) {
      const what = `connection ${link.id}: the reply to ${shortName(target.name)} (${target.swallowed} bytes) swallowed, then the connection reset`;
      this.emit('reply-dropped', link.id, what);
      target.dropped(what);
      setImmediate(() => {
        link.client.resetAndDestroy();
        link.server.resetAndDestroy();
      });
    }
    return chunk.subarray(0, passed);
  }

  /**
   * Swallows the reply to the next request (on any connection, now or new) whose name `matches`, then closes that
   * connection with RST both ways: the server ran the request, and the client never hears whether it did.
   * `dropped` is told what was swallowed. Needs the protocol; one drop is armed at a time (a new one replaces it).
   */
  dropReply(matches: (request: WireRequest) => boolean, dropped: (what: string) => void): void {
    if (!this.options.protocol) throw new Error("the fault proxy was given no protocol: it cannot tell one request's reply from another's");
    this.drop = { matches, dropped };
  }

  /** Whether it frames its connections' requests and replies (it was given the server's protocol). */
  get frames(): boolean {
    return this.options.protocol !== undefined;
  }

  /** Takes back a drop that found no request: whether one was still armed. */
  disarmDrop(): boolean {
    const armed = this.drop !== undefined;
    this.drop = undefined;
    return armed;
  }

  /** Black-holes every connection, now and new ones, for `ms` (or until heal()): nothing passes, nothing is closed. */
  partition(ms?: number): void {
    clearTimeout(this.healTimer);
    this.partitioned = true;
    this.emit('partitioned', null, ms === undefined ? 'until healed' : `for ${ms} ms`);
    if (ms !== undefined) this.healTimer = setTimeout(() => this.heal(), ms);
  }

  /** Ends a partition: what was held goes through, in order. */
  heal(): void {
    clearTimeout(this.healTimer);
    this.healTimer = undefined;
    if (!this.partitioned) return;
    const held = [...this.links].reduce((sum, link) => sum + link.lanes['to-server'].held + link.lanes['to-client'].held, 0);
    this.partitioned = false;
    this.emit('healed', null, `${held} bytes held go through`);
    for (const link of this.links) {
      link.lanes['to-server'].pump();
      link.lanes['to-client'].pump();
    }
  }

  /** Delays every chunk from now on by `ms`, plus up to `jitterMs` drawn from the seed; 0 ends it. */
  setLatency(ms: number, jitterMs = 0): void {
    this.latency = { ms, jitterMs };
    this.emit('latency', null, ms === 0 && jitterMs === 0 ? 'none' : `${ms} ms${jitterMs > 0 ? ` + 0..${jitterMs} ms` : ''} each way`);
  }

  /** Closes every open connection with RST, both sides: what was in flight is lost. */
  reset(): void {
    const ids = [...this.links].map((link) => link.id);
    this.emit('reset', null, ids.length === 0 ? 'no connection open' : `connections ${ids.join(', ')}`);
    for (const link of [...this.links]) {
      link.client.resetAndDestroy();
      link.server.resetAndDestroy();
    }
  }

  /** How many connections are open now. */
  get open(): number {
    return this.links.size;
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    clearTimeout(this.healTimer);
    for (const link of [...this.links]) {
      link.client.destroy();
      link.server.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** How much of a request's name a line shows: a statement of several common table expressions runs to kilobytes. */
const NAME_SHOWN = 60;

/** A request's name as a timeline line shows it: its start, cut with an ellipsis where it is longer. */
function shortName(name: string): string {
  return name.length <= NAME_SHOWN ? name : `${name.slice(0, NAME_SHOWN)}…`;
}
