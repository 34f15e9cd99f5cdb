import { fstatSync, readSync, writeSync } from 'node:fs';
import { InternalError } from '../kernel/errors.js';
import { pointFaultAction } from './actions/index.js';
import { CONTROL_FD_ENV, type FailpointAnswer, type FailpointContext, type FailpointName, type FailpointRequest } from './points.js';

/*
 * The child's side of a failpoint. At a named point the child asks the harness
 * what to do and waits for the answer, SYNCHRONOUSLY: while it waits, none of
 * its timers, heartbeats or I/O run, so a `crash` (SIGKILL from the parent) lands
 * exactly at the point and nothing the child would have done next has happened.
 *
 * The channel is one extra stdio entry 'pipe' at fd 3. Node (libuv) makes it a
 * Unix socketpair and leaves the child's end in blocking mode (only the
 * parent's end is switched to non-blocking), so readSync simply blocks until
 * the answer line arrives: measured, no EAGAIN. One bidirectional fd beats two
 * pipes or FIFOs in the run directory: nothing to create or clean up, and the
 * parent sees the child's death as the socket closing. If something in the
 * child ever flips the fd to non-blocking (a net.Socket opened on it), readSync
 * gets EAGAIN; we then retry, sleeping ~1 ms with Atomics.wait in between,
 * which still keeps the event loop held.
 *
 * Main thread only: two threads asking on one fd would read each other's answers.
 */

/** The control channel is gone or spoke out of turn; the harness that armed this child is broken or dead. */
export class FailpointChannelError extends InternalError {
  constructor(
    readonly code: 'QD_FAILPOINT_CHANNEL_CLOSED' | 'QD_FAILPOINT_PROTOCOL' | 'QD_FAILPOINT_BAD_FD',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

// Read once at load and removed from the environment: a grandchild would
// inherit the variable but not the socket (measured: Node does not pass it on),
// so fd 3 in the grandchild is whatever it opened there; it must not write
// requests into that.
const controlFd = takeControlFd();
const DONE: Promise<void> = Promise.resolve();
const sleeper = new Int32Array(new SharedArrayBuffer(4));
let seq = 0;

function takeControlFd(): number | undefined {
  const raw = process.env[CONTROL_FD_ENV];
  if (raw === undefined) return undefined;
  delete process.env[CONTROL_FD_ENV];
  const fd = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(fd)) {
    throw new FailpointChannelError('QD_FAILPOINT_BAD_FD', `${CONTROL_FD_ENV}=${JSON.stringify(raw)} is not a file descriptor number`);
  }
  let stat: ReturnType<typeof fstatSync>;
  try {
    stat = fstatSync(fd);
  } catch (cause) {
    throw new FailpointChannelError('QD_FAILPOINT_BAD_FD', `${CONTROL_FD_ENV}=${fd} names no open file descriptor`, { cause });
  }
  if (!stat.isSocket() && !stat.isFIFO()) {
    throw new FailpointChannelError('QD_FAILPOINT_BAD_FD', `${CONTROL_FD_ENV}=${fd} is not a socket or a pipe`);
  }
  return fd;
}

/** Whether this process was started with a control channel (a harness decides its faults). */
export function failpointsArmed(): boolean {
  return controlFd !== undefined;
}

/**
 * Reaches the named point: asks the harness, waits for its answer, and carries
 * it out (continue, throw a typed error, exit, delay, hang). Without a control
 * channel it returns at once.
 */
export function failpoint(point: FailpointName, context: Omit<FailpointContext, 'point'>): Promise<void> {
  if (controlFd === undefined) return DONE;
  return hit(controlFd, { ...context, point });
}

async function hit(fd: number, context: FailpointContext): Promise<void> {
  const request: FailpointRequest = { seq: ++seq, pid: process.pid, context };
  writeAll(fd, Buffer.from(`${JSON.stringify(request)}\n`));
  const answer = parseAnswer(readLine(fd), request.seq);
  if (answer.action === 'continue') return;
  // The action says what the child does with its answer (src/faults/actions/).
  await pointFaultAction(answer.action)!.carryOut(answer);
}

/** Blocks until `bytes` are all written (a blocking socket may still take them in parts). */
function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if (retryable(error)) continue;
      throw new FailpointChannelError('QD_FAILPOINT_CHANNEL_CLOSED', 'the harness closed the control channel', { cause: error });
    }
  }
}

/** Blocks until one full line has arrived; the harness sends exactly one per request. */
function readLine(fd: number): string {
  const chunks: Buffer[] = [];
  for (;;) {
    const chunk = Buffer.allocUnsafe(1024);
    let n: number;
    try {
      n = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      if (retryable(error)) continue;
      throw new FailpointChannelError('QD_FAILPOINT_CHANNEL_CLOSED', 'the control channel failed while waiting for an answer', { cause: error });
    }
    if (n === 0) throw new FailpointChannelError('QD_FAILPOINT_CHANNEL_CLOSED', 'the harness closed the control channel before answering');
    const newline = chunk.subarray(0, n).indexOf(0x0a);
    if (newline === -1) {
      chunks.push(chunk.subarray(0, n));
      continue;
    }
    if (newline !== n - 1) {
      throw new FailpointChannelError('QD_FAILPOINT_PROTOCOL', 'the harness sent more than one answer to one request');
    }
    chunks.push(chunk.subarray(0, newline));
    return Buffer.concat(chunks).toString('utf8');
  }
}

/** EAGAIN (the fd was made non-blocking) and EINTR: wait ~1 ms without releasing the event loop, then try again. */
function retryable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EAGAIN' || code === 'EWOULDBLOCK') {
    Atomics.wait(sleeper, 0, 0, 1);
    return true;
  }
  return code === 'EINTR';
}

function parseAnswer(line: string, expectedSeq: number): FailpointAnswer {
  let answer: unknown;
  try {
    answer = JSON.parse(line);
  } catch (cause) {
    throw new FailpointChannelError('QD_FAILPOINT_PROTOCOL', `the answer is not JSON: ${JSON.stringify(line)}`, { cause });
  }
  const a = answer as Partial<Record<string, unknown>> | null;
  if (typeof a !== 'object' || a === null || a.seq !== expectedSeq) {
    throw new FailpointChannelError('QD_FAILPOINT_PROTOCOL', `expected the answer to request ${expectedSeq}, got ${JSON.stringify(line)}`);
  }
  const ok = a.action === 'continue' || (pointFaultAction(a.action)?.isAnswer(a) ?? false);
  if (!ok) throw new FailpointChannelError('QD_FAILPOINT_PROTOCOL', `malformed answer ${JSON.stringify(line)}`);
  return answer as FailpointAnswer;
}
