import type { Clock } from '../../kernel/clock.js';
import { seededRandom } from '../../kernel/random.js';
import type { WireWrite } from '../../kernel/vocabulary.js';
import type { NetworkControl } from '../action.js';
import { FaultProxy, type ProxyEvent } from './fault-proxy.js';
import type { WireProtocol } from './wire-framing.js';

/*
 * Every drill process's own way to each server its queue uses: one fault
 * proxy per process and server, so a network fault aims at one process and
 * leaves the others (and the harness, which keeps its direct connection) as
 * they were. A process is given the servers' URLs in its environment, so its
 * URLs are rewritten to its proxies' ports: no queue's code changes.
 */

/** The variables that carry a server's URL to a drill process: the port its scheme uses when its URL names none, the protocol the proxy frames. */
export const SERVER_URL_VARS: Readonly<Record<string, { port: number; protocol?: WireProtocol }>> = {
  QD_PG_URL: { port: 5432, protocol: 'postgres' },
  QD_REDIS_URL: { port: 6379, protocol: 'resp' },
  QD_AMQP_URL: { port: 5672 },
  QD_NATS_URL: { port: 4222 },
};

/** A network fault was asked of a process the links cannot reach (an embedded queue, a URL that is no TCP address). */
export class NetworkLinkError extends Error {
  readonly code = 'QD_NETWORK_LINK';
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A proxy's event, with the process and the server it stands between. */
export interface LinkEvent extends ProxyEvent {
  process: string;
  server: string;
}

/** The request on the wire a drop aims at: a name's start (or any of several), and a text its context holds. */
export interface WireRequestAim {
  command: string | readonly string[];
  within?: string;
}

/** One process's links to its servers: what a network fault acts on. */
export class NetworkLink implements NetworkControl {
  private healTimer: NodeJS.Timeout | undefined;
  private healed: (() => void) | undefined;
  /** The rule of the drop armed and not yet taken, if any. */
  private armedDrop: string | undefined;

  constructor(
    readonly process: string,
    private readonly proxies: ReadonlyMap<string, FaultProxy>,
    /** The requests the drill's queue says carry its writes (QueueAdapter.wireRequests). */
    private readonly writes: Readonly<Partial<Record<WireWrite, WireRequestAim>>> = {},
  ) {}

  /** The servers this process reaches through the link (their variables' names). */
  get servers(): string[] {
    return [...this.proxies.keys()];
  }

  /** Black-holes every connection of the process for `ms`; resolves when it heals (or the links close). */
  partition(ms: number): Promise<void> {
    this.endPartition();
    for (const proxy of this.proxies.values()) proxy.partition();
    return new Promise((resolve) => {
      this.healed = resolve;
      // Kept ref'd: a partition must end, or a held write never lands; close() clears it.
      this.healTimer = setTimeout(() => this.endPartition(), ms);
    });
  }

  /** Ends a partition now: what was held goes through. */
  heal(): void {
    this.endPartition();
  }

  private endPartition(): void {
    clearTimeout(this.healTimer);
    this.healTimer = undefined;
    for (const proxy of this.proxies.values()) proxy.heal();
    const healed = this.healed;
    this.healed = undefined;
    healed?.();
  }

  /** Delays every chunk each way by `ms`, plus up to `jitterMs` from the seed; 0 ends it. */
  setLatency(ms: number, jitterMs = 0): void {
    for (const proxy of this.proxies.values()) proxy.setLatency(ms, jitterMs);
  }

  /**
   * Swallows the reply to the next request of the process whose name starts with `command` (case aside: `COMMIT`, a
   * BullMQ script such as `moveToFinished`), on whichever server it goes to, then resets that connection; `rule` names
   * the fault, for the drill's count of drops that found no request. With `within`, only a request whose context holds
   * that text: a COMMIT whose transaction ran it (PostgreSQL), a command with it among its arguments (Redis). A
   * `write` is the request the drill's queue says carries it.
   */
  dropReply(target: WireRequestAim | { write: WireWrite }, rule: string): void {
    const request = 'write' in target ? this.writes[target.write] : target;
    if (!request) throw new NetworkLinkError(`the drill's queue names no request on the wire for its ${(target as { write: string }).write} write`);
    const { command, within } = request;
    const framed = [...this.proxies.values()].filter((proxy) => proxy.frames);
    if (framed.length === 0) throw new NetworkLinkError(`${this.process}'s servers speak no protocol the fault proxy frames (PostgreSQL, Redis)`);
    const wanted = (typeof command === 'string' ? [command] : command).map((start) => start.toLowerCase());
    const matches = (request: { name: string; context: string }) =>
      wanted.some((start) => request.name.toLowerCase().startsWith(start)) && (within === undefined || request.context.includes(within));
    this.armedDrop = rule;
    for (const proxy of framed)
      proxy.dropReply(matches, () => {
        this.armedDrop = undefined;
        for (const other of framed) other.disarmDrop();
      });
  }

  /** The rule of a drop still armed (it found no request), taking it back; undefined when none is. */
  disarm(): string | undefined {
    const rule = this.armedDrop;
    this.armedDrop = undefined;
    for (const proxy of this.proxies.values()) if (proxy.frames) proxy.disarmDrop();
    return rule;
  }

  /** Closes every connection of the process with RST. */
  reset(): void {
    for (const proxy of this.proxies.values()) proxy.reset();
  }

  async close(): Promise<void> {
    this.endPartition();
    await Promise.all([...this.proxies.values()].map((proxy) => proxy.close()));
  }
}

/** The links of every process of one drill. */
export class NetworkLinks {
  private constructor(
    private readonly links: ReadonlyMap<string, NetworkLink>,
    private readonly urls: ReadonlyMap<string, Record<string, string>>,
  ) {}

  /**
   * Opens a proxy per process and per server URL in `env` (the variables of SERVER_URL_VARS), each on a
   * port of 127.0.0.1. Jitter is drawn from `seed`, a source per process and server, so one process's
   * traffic does not change another's draws. Throws NetworkLinkError when no server is named.
   */
  static async open(
    env: Readonly<Record<string, string>>,
    processes: readonly string[],
    options: {
      clock: Clock;
      seed: number;
      onEvent?: (event: LinkEvent) => void;
      scripts?: ReadonlyMap<string, string>;
      writes?: Readonly<Partial<Record<WireWrite, WireRequestAim>>>;
    },
  ): Promise<NetworkLinks> {
    const targets = Object.entries(env).filter(([name]) => name in SERVER_URL_VARS);
    if (targets.length === 0) throw new NetworkLinkError('the queue reaches no server over the network (no server URL in its environment)');
    const links = new Map<string, NetworkLink>();
    const urls = new Map<string, Record<string, string>>();
    let stream = 0;
    try {
      for (const process of processes) {
        const proxies = new Map<string, FaultProxy>();
        const rewritten: Record<string, string> = {};
        for (const [name, url] of targets) {
          const target = tcpTarget(name, url);
          const random = seededRandom((options.seed * 7919 + ++stream) >>> 0);
          const onEvent = options.onEvent;
          const { protocol } = SERVER_URL_VARS[name]!;
          const proxy = await FaultProxy.start(target, {
            clock: options.clock,
            random,
            ...(protocol ? { protocol } : {}),
            ...(options.scripts ? { scripts: options.scripts } : {}),
            ...(onEvent ? { onEvent: (event: ProxyEvent) => onEvent({ ...event, process, server: name }) } : {}),
          });
          proxies.set(name, proxy);
          rewritten[name] = throughPort(url, proxy.port);
        }
        links.set(process, new NetworkLink(process, proxies, options.writes));
        urls.set(process, rewritten);
      }
    } catch (error) {
      await Promise.all([...links.values()].map((link) => link.close()));
      throw error;
    }
    return new NetworkLinks(links, urls);
  }

  /** The rules of drops armed that found no request (taken back now): faults that fired and did nothing. */
  unusedDrops(): string[] {
    return [...this.links.values()].flatMap((link) => link.disarm() ?? []);
  }

  /** The process's link, or undefined for a process the drill did not link. */
  of(process: string): NetworkLink | undefined {
    return this.links.get(process);
  }

  /** What the process's environment is given on top of the drill's: each server URL through its own proxy. */
  envFor(process: string): Record<string, string> {
    return this.urls.get(process) ?? {};
  }

  async close(): Promise<void> {
    await Promise.all([...this.links.values()].map((link) => link.close()));
  }
}

function tcpTarget(name: string, url: string): { host: string; port: number } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NetworkLinkError(`${name} is not a URL a network fault can stand in: it needs host:port`);
  }
  if (parsed.hostname === '') throw new NetworkLinkError(`${name} names no host (a socket path?): a network fault needs a TCP address`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: parsed.port === '' ? SERVER_URL_VARS[name]!.port : Number(parsed.port) };
}

/** The URL with its host and port replaced by the proxy's; user, password, path and query kept. */
function throughPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(port);
  return parsed.toString();
}
