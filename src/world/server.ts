import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { CanonicalJsonError } from '../kernel/canonical-json.js';
import { utc, type Clock } from '../kernel/clock.js';
import { PythonJsonError } from '../kernel/python-json.js';
import { toolMetadata } from './catalogue.js';
import { applyCall, type Applied, type WorldCall } from './effects.js';
import { badRequest, issuesOf, WorldError } from './errors.js';
import { FaultTable, parseFaultSpec, type ArmedFault, type FaultAction } from './faults.js';
import type { CallMeta, CallOutcome, WorldLedger } from './ledger.js';
import { reconcile } from './reconcile.js';
import { worldState } from './state.js';

/*
 * The world's HTTP face: node:http, JSON in and out, 127.0.0.1 only. Each
 * call is recorded as received, matched against the armed faults, carried out
 * in one SQLite transaction with its ledger row, and only then answered (or
 * not: that is the drop fault). Nothing of a call's arguments is logged.
 */

/** Largest request body accepted; a drill's calls are small. */
export const MAX_BODY_BYTES = 1024 * 1024;

const CallBodySchema = z.strictObject({
  tool: z.string().min(1),
  key: z.string().min(1).max(512),
  args: z.record(z.string(), z.unknown()),
  meta: z.strictObject({
    job: z.union([z.string().min(1), z.int()]).transform(String),
    step: z.string().min(1),
    attempt: z.int().min(0),
    worker: z.string().min(1),
    pid: z.int().min(0),
    fence: z.int().min(0).optional(),
  }),
});

/** One line of the world's log per call: who, what tool, how it ended. Never the arguments. */
export interface CallLogEntry {
  seq: number;
  tool: string | null;
  key: string | null;
  outcome: CallOutcome;
  status: number | null;
  faultId: number | null;
  fault: FaultAction['type'] | null;
  externalRef: string | null;
  job: string | null;
  step: string | null;
  attempt: number | null;
  worker: string | null;
  ms: number;
}

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

type Parsed =
  | { ok: true; call: WorldCall }
  | { ok: false; error: WorldError; tool: string | null; key: string | null; meta: CallMeta | null };

// Enough of a rejected body to find it in the call table; capped, since it was not validated.
function loose(value: unknown, name: string): string | null {
  const field = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  return typeof field === 'string' ? field.slice(0, 200) : null;
}

/** Validates a POST /call body: the envelope, the tool, then the tool's arguments. */
function parseCall(text: string): Parsed {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, error: new WorldError('WORLD_BAD_JSON', 'the body is not JSON', 400), tool: null, key: null, meta: null };
  }
  const tool = loose(body, 'tool');
  const key = loose(body, 'key');
  const envelope = CallBodySchema.safeParse(body);
  if (!envelope.success) return { ok: false, error: badRequest('WORLD_BAD_REQUEST', 'call', issuesOf(envelope.error.issues)), tool, key, meta: null };
  const { meta } = envelope.data;
  const found = toolMetadata(envelope.data.tool);
  if (!found) {
    const error = badRequest('WORLD_UNKNOWN_TOOL', 'call', [{ path: 'tool', message: `unknown tool ${JSON.stringify(tool)}` }]);
    return { ok: false, error, tool, key, meta };
  }
  const args = found.args.safeParse(envelope.data.args);
  if (!args.success) return { ok: false, error: badRequest('WORLD_BAD_REQUEST', `${found.name} call`, issuesOf(args.error.issues, 'args')), tool, key, meta };
  // The arguments as sent (extra fields included): they are what the digest covers.
  return { ok: true, call: { tool: found.name, key: envelope.data.key, args: envelope.data.args, meta } };
}

function readBody(req: IncomingMessage): Promise<string> {
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

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, error: WorldError, headers: Record<string, string> = {}): void {
  const issues = error.issues.length > 0 ? { issues: error.issues } : {};
  send(res, error.status, { error: { code: error.code, message: error.message, ...issues } }, headers);
}

/** Any thrown value as a WorldError with the right status. */
function asWorldError(error: unknown): WorldError {
  if (error instanceof WorldError) return error;
  if (error instanceof PythonJsonError || error instanceof CanonicalJsonError) {
    return new WorldError('WORLD_BAD_REQUEST', `invalid call: args cannot be digested (${error.code})`, 400);
  }
  // SQLITE_BUSY: the transaction never committed, so nothing was applied: retrying is safe.
  if (typeof error === 'object' && error !== null && 'code' in error && String(error.code).startsWith('SQLITE_BUSY')) {
    return new WorldError('WORLD_INTERNAL', 'the ledger is busy; nothing was applied', 503);
  }
  return new WorldError('WORLD_INTERNAL', `internal error: ${error instanceof Error ? error.name : 'unknown'}`, 500);
}

/** Starts a world on 127.0.0.1 and resolves once it listens. */
export async function startWorldServer(options: WorldServerOptions): Promise<WorldServer> {
  const { ledger, clock } = options;
  const faults = new FaultTable(ledger.db);
  const now = (): string => utc(clock.now());
  // Delayed answers still pending: close() ends them instead of waiting minutes.
  const pending = new Set<() => void>();

  /** Waits ms; false if the caller hung up or the world is closing, so nobody is left to answer. */
  const hold = (ms: number, res: ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      const done = (answer: boolean): void => {
        clearTimeout(timer);
        res.off('close', gone);
        pending.delete(stop);
        resolve(answer);
      };
      const gone = (): void => done(false);
      const stop = (): void => done(false);
      const timer = setTimeout(() => done(true), ms);
      res.once('close', gone);
      pending.add(stop);
    });

  async function handleCall(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = clock.now();
    const at = utc(started);
    let parsed: Parsed;
    try {
      parsed = parseCall(await readBody(req));
    } catch (error) {
      parsed = { ok: false, error: asWorldError(error), tool: null, key: null, meta: null };
    }
    const tool = parsed.ok ? parsed.call.tool : parsed.tool;
    const key = parsed.ok ? parsed.call.key : parsed.key;
    const meta = parsed.ok ? parsed.call.meta : parsed.meta;
    // Received and matched in one transaction: the seq is the "Nth call", and a fault's last firing goes to one call only.
    const { seq, fault } = ledger.transaction(() => {
      const seq = ledger.receiveCall({ key, tool, meta, at });
      const fault: ArmedFault | null = parsed.ok ? faults.take({ seq, tool: parsed.call.tool, key: parsed.call.key }) : null;
      return { seq, fault };
    });
    const action = fault?.spec.action ?? null;
    const faultId = fault?.id ?? null;
    const log = (outcome: CallOutcome, status: number | null, externalRef: string | null): void =>
      options.onCall?.({
        seq,
        tool,
        key,
        outcome,
        status,
        faultId,
        fault: action?.type ?? null,
        externalRef,
        job: meta?.job ?? null,
        step: meta?.step ?? null,
        attempt: meta?.attempt ?? null,
        worker: meta?.worker ?? null,
        ms: clock.now() - started,
      });
    const refuse = (error: WorldError, headers: Record<string, string> = {}): void => {
      ledger.finishCall(seq, { outcome: 'failed', status: error.status, faultId, effectSeq: null });
      log('failed', error.status, null);
      sendError(res, error, headers);
    };

    if (!parsed.ok) return refuse(parsed.error);
    if (action?.type === 'fail') {
      const error = new WorldError('WORLD_INJECTED_FAILURE', `injected ${action.status} before applying (fault ${faultId})`, action.status);
      return refuse(error, action.status === 429 ? { 'retry-after': '1' } : {});
    }
    if (action?.type === 'delay' && !action.applied) {
      ledger.finishCall(seq, { outcome: 'failed', status: 503, faultId, effectSeq: null });
      if (await hold(action.ms, res)) sendError(res, new WorldError('WORLD_DELAYED_NOT_APPLIED', `delayed ${action.ms} ms and not applied (fault ${faultId})`, 503));
      log('failed', 503, null);
      return;
    }

    let applied: Applied;
    const outcomeOf = (a: Applied): CallOutcome => (action?.type === 'drop' ? 'dropped' : a.replayed ? 'replayed' : 'applied');
    const statusOf = (): number | null => (action?.type === 'drop' ? null : action?.type === 'error_after_apply' ? 500 : 200);
    try {
      applied = ledger.transaction(() => {
        const a = applyCall(ledger, parsed.call, at);
        ledger.finishCall(seq, { outcome: outcomeOf(a), status: statusOf(), faultId, effectSeq: a.effectSeq });
        return a;
      });
    } catch (error) {
      return refuse(asWorldError(error));
    }
    // From here the effect is committed: whatever happens to the answer, the ledger has it.
    const body = { result: applied.result, externalRef: applied.externalRef, replayed: applied.replayed };
    switch (action?.type) {
      case 'drop':
        log('dropped', null, applied.externalRef);
        req.socket.destroy();
        return;
      case 'error_after_apply':
        log(outcomeOf(applied), 500, applied.externalRef);
        sendError(res, new WorldError('WORLD_INJECTED_ERROR_AFTER_APPLY', `applied, then failed (fault ${faultId})`, 500));
        return;
      case 'delay':
        if (await hold(action.ms, res)) send(res, 200, body);
        log(outcomeOf(applied), 200, applied.externalRef);
        return;
      default:
        log(outcomeOf(applied), 200, applied.externalRef);
        send(res, 200, body);
    }
  }

  async function handleArm(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      return sendError(res, error instanceof WorldError ? error : new WorldError('WORLD_BAD_JSON', 'the body is not JSON', 400));
    }
    const fault = faults.arm(parseFaultSpec(body), now());
    send(res, 201, { id: fault.id, fault });
  }

  function handleReconcile(url: URL, res: ServerResponse): void {
    const tool = url.searchParams.get('tool');
    const key = url.searchParams.get('key');
    const issues = [
      ...(tool ? [] : [{ path: 'tool', message: 'required' }]),
      ...(key ? [] : [{ path: 'key', message: 'required' }]),
    ];
    if (issues.length > 0) throw badRequest('WORLD_BAD_REQUEST', 'reconcile query', issues);
    const meta = toolMetadata(tool as string);
    if (!meta) throw badRequest('WORLD_UNKNOWN_TOOL', 'reconcile query', [{ path: 'tool', message: `unknown tool ${JSON.stringify(tool)}` }]);
    const fenceText = url.searchParams.get('fence');
    const fence = fenceText === null ? null : Number(fenceText);
    if (fence !== null && (!Number.isInteger(fence) || fence < 0)) throw badRequest('WORLD_BAD_REQUEST', 'reconcile query', [{ path: 'fence', message: 'a whole number' }]);
    const job = url.searchParams.get('job');
    // With a fence, the answer holds from here on for every older holder: the floors are raised first.
    send(res, 200, ledger.transaction(() => {
      if (fence !== null) ledger.admitFence(key as string, fence, job);
      return reconcile(ledger, meta.name, key as string);
    }));
  }

  type Route = Partial<Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>>>;
  const routes: Record<string, Route> = {
    '/call': { POST: handleCall },
    '/reconcile': { GET: (_req, res, url) => handleReconcile(url, res) },
    '/faults': {
      POST: handleArm,
      GET: (_req, res, url) => send(res, 200, { faults: faults.list({ includeCleared: url.searchParams.get('all') === '1' }) }),
      DELETE: (_req, res) => send(res, 200, { cleared: faults.clear(now()) }),
    },
    '/ledger': { GET: (_req, res) => send(res, 200, { effects: ledger.effects() }) },
    '/calls': { GET: (_req, res) => send(res, 200, { calls: ledger.calls() }) },
    '/state': { GET: (_req, res) => send(res, 200, worldState(ledger.db)) },
    '/health': { GET: (_req, res) => send(res, 200, { ok: true, pid: process.pid }) },
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = routes[url.pathname];
    const handler = route?.[req.method ?? ''];
    if (!route) return sendError(res, new WorldError('WORLD_NOT_FOUND', `no route ${url.pathname}`, 404));
    if (!handler) return sendError(res, new WorldError('WORLD_METHOD_NOT_ALLOWED', `${req.method} not allowed on ${url.pathname}`, 405), { allow: Object.keys(route).join(', ') });
    Promise.resolve()
      .then(() => handler(req, res, url))
      .catch((error: unknown) => sendError(res, asWorldError(error)));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stop of [...pending]) stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
