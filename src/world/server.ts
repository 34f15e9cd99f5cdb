import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../kernel/clock.js';
import { Releasers } from '../kernel/releasers.js';
import { DelayedAnswers } from './delayed-answers.js';
import { asWorldError, WorldError } from './errors.js';
import { FaultTable } from './faults.js';
import type { WorldLedger } from './ledger.js';
import type { CallLogEntry } from './received-call.js';
import { sendError } from './respond.js';
import type { WorldContext } from './routes/route.js';
import { WORLD_ROUTES } from './routes/table.js';

/*
 * The world's HTTP face: node:http, JSON in and out, 127.0.0.1 only. This
 * file only listens, reads bodies, dispatches to the route table and turns
 * what a handler throws into an answer; what each path does is in routes/.
 */

/** Largest request body accepted; a drill's calls are small. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** What a world serves, and where it reports each call. */
export interface WorldServerOptions {
  ledger: WorldLedger;
  clock: Clock;
  /** 0 (the default) picks a free port. */
  port?: number;
  onCall?: (entry: CallLogEntry) => void;
}

/** A listening world. close() answers nothing more, ends delayed responses, and frees the port. */
export interface WorldServer {
  readonly port: number;
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** The whole body as text; rejects with a 413 WorldError past MAX_BODY_BYTES instead of buffering an endless upload. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new WorldError('WORLD_BODY_TOO_LARGE', `the body is over ${MAX_BODY_BYTES} bytes`, 413));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The body reader a handler gets: read on first ask only (a GET never reads), and the same answer on a second ask. */
function bodyOnce(req: IncomingMessage): () => Promise<string> {
  let body: Promise<string> | undefined;
  return () => (body ??= readBody(req));
}

/** Answers 404 or 405 itself, else runs the path's handler and answers whatever it throws with its code. */
function dispatch(req: IncomingMessage, res: ServerResponse, world: WorldContext): void {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const route = WORLD_ROUTES[url.pathname];
  const handler = route?.[req.method ?? ''];
  if (!route) {
    sendError(res, new WorldError('WORLD_NOT_FOUND', `no route ${url.pathname}`, 404));
    return;
  }
  if (!handler) {
    sendError(res, new WorldError('WORLD_METHOD_NOT_ALLOWED', `${req.method} not allowed on ${url.pathname}`, 405), {
      allow: Object.keys(route).join(', '),
    });
    return;
  }
  Promise.resolve()
    .then(() => handler({ req, res, url, body: bodyOnce(req) }, world))
    .catch((error: unknown) => sendError(res, asWorldError(error)));
}

// Resolves once listening; a taken port rejects (EADDRINUSE) instead of crashing the process through an unhandled 'error'.
export function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Stops accepting and ends every open connection: an idle keep-alive socket would otherwise hold close() open. */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Starts a world on 127.0.0.1 and resolves once it listens. */
export async function startWorldServer(options: WorldServerOptions): Promise<WorldServer> {
  const delayed = new DelayedAnswers();
  const world: WorldContext = {
    ledger: options.ledger,
    clock: options.clock,
    faults: new FaultTable(options.ledger.db),
    delayed,
    onCall: options.onCall,
  };
  const server = createServer((req, res) => dispatch(req, res, world));
  // Not listening yet, nothing to release: a refused port leaves nothing open.
  await listen(server, options.port ?? 0);
  const releasers = new Releasers();
  releasers.add('http server', () => closeServer(server));
  // Held answers are timers started while serving, so they are released first: no handler is left waiting on a closed socket.
  releasers.add('delayed answers', () => delayed.stopAll());
  const { port } = server.address() as AddressInfo;
  return { port, url: `http://127.0.0.1:${port}`, server, close: () => releasers.releaseAll() };
}
