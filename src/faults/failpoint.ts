import { fstatSync, readSync, writeSync } from 'node:fs';
import type { Clock } from '../kernel/clock.js';
import { InternalError } from '../kernel/errors.js';
import { pointFaultAction } from './actions/index.js';
import {
  type ChannelReport,
  type ClockReading,
  CONTROL_FD_ENV,
  type FailpointAnswer,
  type FailpointContext,
  type FailpointName,
  type FailpointRequest,
  type LeaseGranted,
} from './points.js';

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
 *
 * Every line also carries the process's clock (once it was given one: useClock),
 * so the harness measures that clock against its own (src/kernel/time-base.ts);
 * and a worker reports each lease its queue grants on the same channel, as a
 * line the harness answers like a failpoint (reportLease).
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
/** The process's clock, as its queue reads it (a skewed one, for a skew fault); none given: lines carry no reading. */
let channelClock: Clock | undefined;
/** The last answer that arrived, by channelClock: the next line closes its round trip. */
let lastAnswer: { seq: number; clock: number } | undefined;

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

/**
 * Gives the channel the process's clock, and sends the harness two readings of
 * it at once (the second closes the first's round trip, so the offset is
 * bounded both ways from the start): before the process touches its queue.
 * Without a control channel it does nothing.
 */
export function useClock(clock: Clock): void {
  channelClock = clock;
  if (controlFd === undefined) return;
  report(controlFd, { kind: 'clock' });
  report(controlFd, { kind: 'clock' });
}

/** Tells the harness of a lease the queue just granted (a claim's or a renewal's end); nothing without a channel and a clock. */
export function reportLease(lease: LeaseGranted): void {
  if (controlFd === undefined || channelClock === undefined) return;
  report(controlFd, { kind: 'lease', ...lease });
}

function report(fd: number, body: ChannelReport['report']): void {
  const line: Omit<ChannelReport, 'reading'> = { seq: ++seq, pid: process.pid, report: body };
  const answer = exchange(fd, line);
  if (answer.action !== 'continue') throw new FailpointChannelError('QD_FAILPOINT_PROTOCOL', `a report was answered ${answer.action}`);
}

/** The clock's reading for a line about to leave, with the last answer's arrival; none without a clock. */
function readingNow(): ClockReading | undefined {
  if (channelClock === undefined) return undefined;
  return { clock: channelClock.now(), ...(lastAnswer ? { answered: lastAnswer } : {}) };
}

/** Sends one line (a request or a report) and blocks for its answer; the clock is read as late and as early as it can be. */
function exchange(fd: number, line: { seq: number }): FailpointAnswer {
  const reading = readingNow();
  writeAll(fd, Buffer.from(`${JSON.stringify(reading ? { ...line, reading } : line)}\n`));
  const text = readLine(fd);
  if (channelClock !== undefined) lastAnswer = { seq: line.seq, clock: channelClock.now() };
  return parseAnswer(text, line.seq);
}

async function hit(fd: number, context: FailpointContext): Promise<void> {
  const request: Omit<FailpointRequest, 'reading'> = { seq: ++seq, pid: process.pid, context };
  const answer = exchange(fd, request);
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
