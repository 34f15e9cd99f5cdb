import { type ChildProcess, spawn } from 'node:child_process';
import { shownCommand } from './command-line.js';
import { type Answer, type ChildEvent, ProtocolError, type Request } from './protocol.js';

/** How a child is started and what is done with what it says besides answers. */
export interface ChannelOptions {
  /** The drill's clock: every request carries its `now`, so a child on the caller's clock sees the drill's time (and its skew). */
  now: () => number;
  /** A message the child sent on its own (a delivery). */
  onEvent?: (event: ChildEvent) => void;
  /** A line on stdout that is not an answer or an event of the protocol: the child broke it. */
  onViolation?: (what: string) => void;
  /** Where the child's stderr goes: this process's (its logs end beside the drill process's), or kept for the caller. @default 'inherit' */
  stderr?: 'inherit' | 'pipe';
  /** How long a request waits for its answer unless it says otherwise. @default DEFAULT_REQUEST_TIMEOUT_MS */
  requestTimeoutMs?: number;
}

/**
 * How long a request waits for its answer by default: far above what any
 * queue operation takes, so a child that stopped answering is an error of
 * that queue, never a drill that waits for ever. A drill's connection waits
 * longer when its lease is longer (requestTimeoutFor in process-connection.ts).
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** The longest line read from a child's stdout (a snapshot of a big queue fits many times over); more without a newline is a flood. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** How many lines that break the protocol a child may write before it is stopped: a few are logged, a stream of them is a broken child. */
export const MAX_VIOLATIONS = 100;

/** How many of them are reported one by one (the rest are counted, and the stop says so). */
const REPORTED_VIOLATIONS = 10;

/** How long a child has to exit after its stdin closed before it is killed. */
const EXIT_GRACE_MS = 2_000;

interface Pending {
  op: string;
  resolve: (body: Record<string, unknown>) => void;
  reject: (error: ProtocolError) => void;
  timer: NodeJS.Timeout | undefined;
}

/*
 * One child of a `process:` command, spoken to in JSON lines: requests with
 * ids on its stdin, answers and events read from its stdout, its stderr passed
 * through as its log. The child is in this process's group and exits when its
 * stdin closes, so a drill process that is killed takes its child with it.
 */
export class ChildChannel {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly child: ChildProcess;
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  /** Settles once the child has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The child's stderr, when the options kept it (`stderr: 'pipe'`). */
  stderrText = '';
  /** Bytes read from stdout and not yet a whole line. */
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private violations = 0;
  /** Why this side stopped the child, once it did: what every later request is told. */
  private stoppedBecause: { code: string; message: string } | null = null;
  /** The child's command line, for messages: which queue broke. */
  private readonly command: string;

  constructor(
    argv: readonly string[],
    private readonly options: ChannelOptions,
  ) {
    const [program, ...args] = argv;
    this.command = shownCommand(argv);
    this.child = spawn(program!, args, { stdio: ['pipe', 'pipe', options.stderr ?? 'inherit'] });
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.exitInfo ??= { code: null, signal: null };
        this.failAll('child_failed', `could not run ${this.command}: ${error.message}`);
        resolve(this.exitInfo);
      });
      this.child.once('close', (code, signal) => {
        this.exitInfo = { code, signal };
        this.failAll('child_exited', `the queue child ${this.command} exited (${signal ?? `code ${code}`}) before answering`);
        resolve(this.exitInfo);
      });
    });
    // A child that died cannot take our writes; the exit above says so to every request.
    this.child.stdin!.on('error', () => {});
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrText = (this.stderrText + chunk.toString('utf8')).slice(-20_000);
    });
    this.child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  /** Splits stdout into lines, refusing a line longer than MAX_LINE_BYTES (a child flooding its stdout). */
  private receive(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      const line = Buffer.concat([...this.partial, chunk.subarray(start, newline)]).toString('utf8');
      this.partial = [];
      this.partialBytes = 0;
      start = newline + 1;
      this.read(line.endsWith('\r') ? line.slice(0, -1) : line);
      if (this.exitInfo || this.stoppedBecause) return;
    }
    const rest = chunk.subarray(start);
    this.partial.push(rest);
    this.partialBytes += rest.length;
    if (this.partialBytes > MAX_LINE_BYTES && !this.stoppedBecause) {
      this.stop('flooded', `it wrote more than ${MAX_LINE_BYTES / 1024 / 1024} MiB on stdout without a newline (one JSON object a line)`);
    }
  }

  /** Stops a child that broke the protocol past bearing: every request waiting fails with `code`, and the child is killed. */
  private stop(code: string, message: string): void {
    const why = `the queue child ${this.command} was stopped: ${message}`;
    this.stoppedBecause = { code, message: why };
    this.partial = [];
    this.partialBytes = 0;
    this.options.onViolation?.(message);
    this.failAll(code, why);
    this.child.kill('SIGKILL');
  }

  /** One line that breaks the protocol: reported; past MAX_VIOLATIONS the child is stopped. */
  private violation(what: string): void {
    this.violations++;
    if (this.violations > MAX_VIOLATIONS) {
      if (!this.stoppedBecause) this.stop('protocol_broken', `it broke the protocol more than ${MAX_VIOLATIONS} times (the last: ${what})`);
      return;
    }
    if (this.violations <= REPORTED_VIOLATIONS) this.options.onViolation?.(what);
  }

  /** The child's process id (undefined if it could not start). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the child has exited. */
  get hasExited(): boolean {
    return this.exitInfo !== null;
  }

  /** How long a request waits for its answer unless it says otherwise (the drill scales it with the lease). */
  get requestTimeoutMs(): number {
    return this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /**
   * Sends `op` and resolves with the `ok` answer's body; rejects with a
   * ProtocolError on `fail` (definite), `info` (indefinite), no answer within
   * `timeoutMs` (null: wait as long as it takes, for `work`, which answers
   * when the child's loop ends), or the child's exit (both indefinite).
   */
  request(
    op: string,
    fields: Record<string, unknown> = {},
    timeoutMs: number | null = this.options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const message: Request = { ...fields, id, op, now: Math.round(this.options.now()) };
    return new Promise((resolve, reject) => {
      if (this.exitInfo || this.stoppedBecause) {
        const why = this.stoppedBecause ?? { code: 'child_exited', message: `the queue child ${this.command} has exited` };
        reject(new ProtocolError(why.code, why.message, false, op));
        return;
      }
      const timer =
        timeoutMs === null
          ? undefined
          : setTimeout(() => {
              // Read what the child sent first: this process may have been stopped or blocked past the timeout (a
              // pause fault freezes it with its child), and an answer waiting in the pipe is an answer.
              setImmediate(() => {
                if (!this.pending.delete(id)) return;
                reject(new ProtocolError('no_answer', `the queue child ${this.command} gave no answer within ${timeoutMs} ms`, false, op));
              });
            }, timeoutMs);
      this.pending.set(id, { op, resolve, reject, timer });
      this.child.stdin!.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** Writes a raw line to the child (protocol-check's malformed requests). */
  writeLine(line: string): void {
    if (!this.exitInfo) this.child.stdin!.write(`${line}\n`);
  }

  /** Closes the child's stdin and waits for it to exit; kills it if it has not within the grace period. */
  async close(graceMs = EXIT_GRACE_MS): Promise<{ code: number | null; signal: NodeJS.Signals | null; killed: boolean }> {
    this.child.stdin!.end();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), graceMs);
    });
    const first = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (first !== 'late') return { ...first, killed: false };
    this.child.kill('SIGKILL');
    return { ...(await this.exited), killed: true };
  }

  private read(line: string): void {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.violation(`a line on stdout that is not JSON: ${JSON.stringify(line.slice(0, 200))}`);
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      this.violation(`a line on stdout that is not a JSON object: ${line.slice(0, 200)}`);
      return;
    }
    if ('event' in message && typeof message.event === 'string') {
      this.options.onEvent?.(message as ChildEvent);
      return;
    }
    this.answer(message as Partial<Answer>, line);
  }

  private answer(message: Partial<Answer>, line: string): void {
    // A request the child could not read (no id to name) is answered with re null: allowed, and nobody waits for it.
    if (message.re === null && (message.type === 'fail' || message.type === 'info')) return;
    const pending = typeof message.re === 'number' ? this.pending.get(message.re) : undefined;
    if (!pending) {
      this.violation(`an answer to no request waiting: ${line.slice(0, 200)}`);
      return;
    }
    this.pending.delete(message.re as number);
    clearTimeout(pending.timer);
    if (message.type === 'ok' && typeof message.body === 'object' && message.body !== null && !Array.isArray(message.body)) {
      pending.resolve(message.body);
    } else if ((message.type === 'fail' || message.type === 'info') && typeof message.code === 'string') {
      pending.reject(new ProtocolError(message.code, String(message.message ?? ''), message.type === 'fail', pending.op));
    } else {
      this.violation(`answer to ${pending.op} is neither ok with a body nor fail/info with a code: ${line.slice(0, 200)}`);
      pending.reject(new ProtocolError('malformed_answer', `malformed answer: ${line.slice(0, 200)}`, false, pending.op));
    }
  }

  private failAll(code: string, message: string): void {
    for (const [id, pending] of this.pending) {
      this.pending.delete(id);
      clearTimeout(pending.timer);
      pending.reject(new ProtocolError(code, message, false, pending.op));
    }
  }
}
