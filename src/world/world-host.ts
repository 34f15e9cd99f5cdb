import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, utc } from '../kernel/clock.js';
import { jsonLogger } from '../kernel/log.js';
import { WorldLedger } from './ledger.js';
import { send } from './respond.js';
import { closeServer, listen, readBody, startWorldServer, type WorldServer } from './server.js';

/*
 * Many worlds in one process, for a drill that runs scenario after scenario:
 * each world is what `queue-drill world` runs (its own ledger, its own port on
 * 127.0.0.1, its own call log in its scenario's directory), opened and closed
 * on the harness's request, so a scenario does not pay a process start for
 * its world. The harness asks on a control port of its own (127.0.0.1 too):
 *   POST /open  {"ledger": FILE, "log": FILE}  ->  {"port": N}
 *   POST /close {"port": N}                     ->  {"closed": true|false}
 * A world closes as a world process stops: its server (and every answer it
 * holds back) first, then its ledger, so the harness may read the ledger once
 * the close is answered. The host itself stops on its signal, closing every world.
 */

/** The host's clock and stop signal. */
export interface RunWorldHostOptions {
  clock: Clock;
  /** Aborting it closes every world and the control port; runWorldHost then resolves. */
  signal: AbortSignal;
  /** Where the host's own lines go (the listening line the harness reads). @default process.stdout */
  write?: (text: string) => void;
}

interface OpenWorld {
  server: WorldServer;
  ledger: WorldLedger;
  log: ReturnType<typeof jsonLogger>;
}

/** The worlds a host holds, by port. */
class Worlds {
  private readonly open = new Map<number, OpenWorld>();

  constructor(private readonly clock: Clock) {}

  async add(ledgerFile: string, logFile: string): Promise<number> {
    const log = jsonLogger(
      'world',
      () => utc(this.clock.now()),
      (text) => appendFileSync(logFile, text),
    );
    const ledger = WorldLedger.open(ledgerFile);
    let server: WorldServer;
    try {
      // No arguments here, ever: only who called, which tool, and how it ended.
      server = await startWorldServer({ ledger, clock: this.clock, port: 0, onCall: (entry) => log({ event: 'call', ...entry }) });
    } catch (error) {
      ledger.close();
      throw error;
    }
    this.open.set(server.port, { server, ledger, log });
    log({ event: 'listening', port: server.port, pid: process.pid });
    return server.port;
  }

  async close(port: number): Promise<boolean> {
    const world = this.open.get(port);
    if (!world) return false;
    this.open.delete(port);
    try {
      await world.server.close();
    } finally {
      world.ledger.close();
      world.log({ event: 'stopped', pid: process.pid });
    }
    return true;
  }

  async closeAll(): Promise<void> {
    for (const port of [...this.open.keys()]) await this.close(port);
  }
}

async function control(req: IncomingMessage, res: ServerResponse, worlds: Worlds): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  if (req.method !== 'POST' || (path !== '/open' && path !== '/close')) return send(res, 404, { error: `no route ${req.method} ${path}` });
  // A world's own body reader (its size limit included); anything but a JSON object is refused below.
  const parsed: unknown = JSON.parse(await readBody(req));
  const body = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (path === '/open') {
    if (typeof body.ledger !== 'string' || typeof body.log !== 'string') return send(res, 400, { error: 'open takes {"ledger": FILE, "log": FILE}' });
    return send(res, 200, { port: await worlds.add(body.ledger, body.log) });
  }
  if (typeof body.port !== 'number') return send(res, 400, { error: 'close takes {"port": N}' });
  return send(res, 200, { closed: await worlds.close(body.port) });
}

/** Runs a world host until the signal is aborted. */
export async function runWorldHost(options: RunWorldHostOptions): Promise<void> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const log = jsonLogger('world-host', () => utc(options.clock.now()), write);
  const worlds = new Worlds(options.clock);
  const server = createServer((req, res) => {
    control(req, res, worlds).catch((error: unknown) => send(res, 500, { error: error instanceof Error ? error.message : String(error) }));
  });
  await listen(server, 0);
  const { port } = server.address() as AddressInfo;
  try {
    // Exactly this shape, as a world's: the parent parses it to learn the control port.
    write(`${JSON.stringify({ event: 'listening', port, pid: process.pid })}\n`);
    if (!options.signal.aborted) await once(options.signal, 'abort');
  } finally {
    await closeServer(server);
    await worlds.closeAll();
    log({ event: 'stopped', pid: process.pid });
  }
}
