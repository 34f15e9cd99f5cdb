import type { Agent, IncomingMessage } from 'node:http';
import { type JobError, PermanentError, TransientError, UnknownOutcomeError } from '../kernel/job-errors.js';
import type { WorldErrorCode } from './errors.js';
import type { ArmedFault, FaultSpecInput } from './faults.js';
import type { CallRow } from './ledger/calls-table.js';
import type { DeliveryReport } from './ledger/deliveries-table.js';
import type { EffectRow } from './ledger/effects-table.js';
import type { ReconcileAnswer } from './reconcile.js';
import type { WorldState } from './state.js';

/*
 * How a worker or the coordinator talks to the world, and the one place where
 * a failed call becomes the transaction sketch's error kinds. The rule: if the request may
 * have reached the world and no answer says what happened, the outcome is
 * unknown (reconcile, never retry blind); only a failure that provably
 * happened before anything was sent, or an answer that says "not applied"
 * (503, 429), is transient.
 */

/** Who makes a call; the world writes it on every effect. */
export interface WorldCallMeta {
  job: string | number;
  step: string;
  attempt: number;
  worker: string;
  pid: number;
  /** The caller's lease fence: the world refuses a key's call under a fence older than one it has seen. */
  fence?: number;
}

/** A successful call: the stored result, the effect's external reference (null for a pure tool), and whether it was a replay by key. */
export interface CallResponse {
  result: unknown;
  externalRef: string | null;
  replayed: boolean;
}

/** A typed job error (TransientError, PermanentError, UnknownOutcomeError) with the world's stable code and the HTTP status, if one came back. */
export type WorldClientError = JobError & { readonly code: WorldErrorCode; readonly status: number | null };

/** How a client waits. */
export interface WorldClientOptions {
  /** Give up on an answer after this long: an unknown outcome for a call. @default 5_000 */
  timeoutMs?: number;
}

// 'effect': the request may change the world, so silence is an unknown outcome.
// 'read': nothing changes, so any failure is safe to retry.
type Mode = 'effect' | 'read';

const SERVER_CODES = new Set<string>([
  'WORLD_BAD_JSON',
  'WORLD_BAD_REQUEST',
  'WORLD_UNKNOWN_TOOL',
  'WORLD_BODY_TOO_LARGE',
  'WORLD_NOT_FOUND',
  'WORLD_METHOD_NOT_ALLOWED',
  'WORLD_KEY_REUSED',
  'WORLD_STALE_FENCE',
  'WORLD_COMPENSATION_MISMATCH',
  'WORLD_INJECTED_FAILURE',
  'WORLD_INJECTED_ERROR_AFTER_APPLY',
  'WORLD_DELAYED_NOT_APPLIED',
  'WORLD_INTERNAL',
]);

function tag<E extends JobError>(error: E, code: WorldErrorCode, status: number | null): E & WorldClientError {
  return Object.assign(error, { code, status });
}

/** The typed error for an HTTP error status. */
function statusError(mode: Mode, what: string, status: number, body: unknown): WorldClientError {
  const answered = typeof body === 'object' && body !== null ? (body as { error?: { code?: unknown; message?: unknown } }).error : undefined;
  const code = typeof answered?.code === 'string' && SERVER_CODES.has(answered.code) ? (answered.code as WorldErrorCode) : 'WORLD_HTTP_STATUS';
  const message = `${what}: HTTP ${status}${typeof answered?.message === 'string' ? `: ${answered.message}` : ''}`;
  if (status === 503 || status === 429) return tag(new TransientError(message), code, status);
  if (status >= 500) {
    // A 500 after the world applied is indistinguishable from one before: unknown.
    return mode === 'effect'
      ? tag(new UnknownOutcomeError(`${message}; the effect may have happened`), code, status)
      : tag(new TransientError(message), code, status);
  }
  return tag(new PermanentError(message), code, status);
}

/** The typed error for a request that got no usable answer. */
function silenceError(mode: Mode, what: string, reason: 'timeout' | 'lost' | 'unreadable', sent: boolean, cause: unknown): WorldClientError {
  const code: WorldErrorCode = reason === 'timeout' ? 'WORLD_TIMEOUT' : reason === 'lost' ? 'WORLD_RESPONSE_LOST' : 'WORLD_BAD_RESPONSE';
  const text =
    reason === 'timeout' ? 'no answer in time' : reason === 'lost' ? 'the connection was lost before an answer' : 'the answer could not be read';
  // Before the connection was up nothing was sent: nothing can have happened.
  if (!sent)
    return tag(
      new TransientError(`${what}: ${text}, before the request was sent`, { cause }),
      code === 'WORLD_BAD_RESPONSE' ? code : 'WORLD_UNREACHABLE',
      null,
    );
  if (mode === 'read') return tag(new TransientError(`${what}: ${text}`, { cause }), code, null);
  return tag(new UnknownOutcomeError(`${what}: ${text}; the effect may have happened`, { cause }), code, null);
}

/** A client of one world. Each request uses a fresh connection; close() ends any still open. */
export class WorldClient {
  readonly timeoutMs: number;
  // Made at the first request, with node:http: a worker or coordinator stopped
  // before its first job never sends one, and loading node:http costs a start
  // about 2 ms of CPU.
  private agent: Agent | undefined;

  constructor(
    readonly baseUrl: string,
    options: WorldClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

  /** Calls a tool under an idempotency key; throws a WorldClientError (a typed job error) on any failure. */
  async call(tool: string, key: string, args: Record<string, unknown>, meta: WorldCallMeta): Promise<CallResponse> {
    return (await this.send('POST', '/call', { tool, key, args, meta }, 'effect', `world call ${tool} (key ${key})`)) as CallResponse;
  }

  /**
   * Asks whether the call under `key` happened: completed, not_executed, or
   * unknown (a tool without lookup). With a fence (an epoch, and the job it is
   * the epoch of), the world also refuses every later call of this key, and of
   * any key of that job, under an older one.
   */
  async reconcile(tool: string, key: string, fence?: { epoch: number; job?: string }): Promise<ReconcileAnswer> {
    const query = new URLSearchParams({
      tool,
      key,
      ...(fence === undefined ? {} : { fence: String(fence.epoch) }),
      ...(fence?.job === undefined ? {} : { job: fence.job }),
    });
    return (await this.send('GET', `/reconcile?${query}`, undefined, 'read', `world reconcile ${tool} (key ${key})`)) as ReconcileAnswer;
  }

  /** Arms a fault; the world validates it (a PermanentError names the wrong paths). */
  async armFault(spec: FaultSpecInput): Promise<ArmedFault> {
    return ((await this.send('POST', '/faults', spec, 'effect', 'world arm fault')) as { fault: ArmedFault }).fault;
  }

  /** The armed faults with their fired counts (includeCleared: every fault ever armed). */
  async faults(options: { includeCleared?: boolean } = {}): Promise<ArmedFault[]> {
    const path = options.includeCleared ? '/faults?all=1' : '/faults';
    return ((await this.send('GET', path, undefined, 'read', 'world faults')) as { faults: ArmedFault[] }).faults;
  }

  /** Disarms every fault; returns them with their final fired counts. */
  async clearFaults(): Promise<ArmedFault[]> {
    return ((await this.send('DELETE', '/faults', undefined, 'effect', 'world clear faults')) as { cleared: ArmedFault[] }).cleared;
  }

  /** Every applied effect. */
  async ledger(): Promise<EffectRow[]> {
    return ((await this.send('GET', '/ledger', undefined, 'read', 'world ledger')) as { effects: EffectRow[] }).effects;
  }

  /** Tells the world where a delivery of a job stands (src/world/ledger/deliveries-table.ts). */
  async reportDelivery(report: DeliveryReport): Promise<void> {
    await this.send('POST', '/delivery', report, 'read', `world delivery report (job ${report.job})`);
  }

  /** Every call received, with its outcome and the fault that hit it. */
  async calls(): Promise<CallRow[]> {
    return ((await this.send('GET', '/calls', undefined, 'read', 'world calls')) as { calls: CallRow[] }).calls;
  }

  /** The simulated systems' state (files, branches, articles). */
  async state(): Promise<WorldState> {
    return (await this.send('GET', '/state', undefined, 'read', 'world state')) as WorldState;
  }

  /** Whether the world answers, and its pid. */
  async health(): Promise<{ ok: true; pid: number }> {
    return (await this.send('GET', '/health', undefined, 'read', 'world health')) as { ok: true; pid: number };
  }

  /** Ends every open connection, so nothing of this client keeps the process alive. */
  close(): void {
    this.agent?.destroy();
  }

  private send(method: string, path: string, body: unknown, mode: Mode, what: string): Promise<unknown> {
    const http = process.getBuiltinModule('node:http');
    // No keep-alive: reusing an idle connection the server has just closed fails
    // with ECONNRESET, which for a call would read as a lost response: a false
    // unknown outcome. A fresh local connection costs far less than that.
    this.agent ??= new http.Agent({ keepAlive: false });
    const agent = this.agent;
    const url = new URL(path, this.baseUrl);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      let sent = false;
      let settled = false;
      const finish = (error: Error | null, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(value);
      };
      const req = http.request(url, {
        method,
        agent,
        headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
      });
      const timer = setTimeout(() => {
        finish(silenceError(mode, what, 'timeout', sent, null));
        req.destroy();
      }, this.timeoutMs);
      req.on('socket', (socket) => {
        if (!socket.connecting) sent = true;
        else socket.once('connect', () => (sent = true));
      });
      req.on('error', (error: NodeJS.ErrnoException) => finish(silenceError(mode, what, 'lost', sent, error)));
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (error) => finish(silenceError(mode, what, 'lost', true, error)));
        res.on('aborted', () => finish(silenceError(mode, what, 'lost', true, null)));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch (error) {
            if (status >= 200 && status < 300) return finish(silenceError(mode, what, 'unreadable', true, error));
            parsed = undefined;
          }
          if (status >= 200 && status < 300) finish(null, parsed);
          else finish(statusError(mode, what, status, parsed));
        });
      });
      req.end(payload);
    });
  }
}
