import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { type Clock, systemClock } from '../kernel/clock.js';
import { InternalError } from '../kernel/errors.js';
import type { FiringControl, NetworkControl } from './action.js';
import { pointFaultAction } from './actions/index.js';
import { ClaimWatch } from './claim-watch.js';
import type { ClockBook } from './clock-book.js';
import type { ControlFactory, ControlHandler, ControlledChild } from './control-channel.js';
import type { FaultPlan, PointFaultActionSpec } from './fault-plan.js';
import {
  type ChannelReport,
  type ClockReading,
  type FailpointAnswer,
  type FailpointContext,
  type FailpointName,
  type FailpointRequest,
  isFailpointName,
} from './points.js';

/*
 * The harness's side of one child's control channel. It reads the child's
 * requests line by line, asks the FaultPlan, records each hit on the timeline,
 * and does the parent's part of the decided action, as the action says
 * (src/faults/actions/: a crash SIGKILLs the waiting child, a pause stops its
 * group for a while, the others answer and leave the rest to the child).
 *
 * Each line's clock reading bounds the child's clock offset, and each lease a
 * worker reports is kept, in the drill's ClockBook: the line is stamped as it
 * arrives, before it waits its turn, and each answer as it is written.
 *
 * It stops (clears its timer, drops its listeners, closes the channel) when
 * the channel closes, which happens when the child dies, or when stop() is
 * called; the supervisor calls stop() when the child exits, too.
 */

export type { ControlledChild } from './control-channel.js';

/** One entry of the harness's timeline: a hit at a point, a fault fired there, or the end of a pause. */
export interface ControlEvent {
  /** Milliseconds since the epoch, from the controller's clock. */
  at: number;
  child: string;
  incarnation: number;
  pid: number;
  kind: 'hit' | 'fired' | 'resumed';
  point: FailpointName;
  context: FailpointContext;
  action: PointFaultActionSpec | { type: 'continue' };
  /** The id of the rule that fired; absent for a plain hit. */
  rule?: string;
}

/**
 * The channel could not be served: the child broke the protocol, or a callback
 * threw. The controller stops and closes the channel, so the child fails at its
 * next failpoint with a channel error instead of waiting forever.
 */
export class ControlChannelError extends InternalError {
  constructor(
    readonly code: 'QD_CONTROL_PROTOCOL' | 'QD_CONTROL_FAILED',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** How a controller decides and where it reports. */
export interface ControllerOptions {
  plan: FaultPlan;
  /** Receives every timeline event as it happens. @default drop (read them from `events`) */
  onEvent?: (event: ControlEvent) => void;
  /** Receives protocol errors. @default drop (read them from `errors`) */
  onError?: (error: ControlChannelError) => void;
  /** @default systemClock() */
  clock?: Clock;
  /** Restarts the queue's server, for the restart_server action; absent where the queue has none the drill may restart. */
  restartServer?: () => Promise<string>;
  /** The process's links to its queue's servers, for the network actions; absent (or undefined for a process) where the drill has none. */
  network?: (process: string) => NetworkControl | undefined;
  /** The claims every controller of the drill sees (a pause until the job is claimed again waits on it). @default one per controller */
  claims?: ClaimWatch;
  /** Where the children's clocks and reported leases are kept. @default not kept */
  clocks?: ClockBook;
}

/** Answers one child's failpoints from a FaultPlan and records the timeline. */
export class FailpointController implements ControlHandler {
  /** Every event of this child, in order. */
  readonly events: ControlEvent[] = [];
  /** Protocol errors seen on this channel. */
  readonly errors: ControlChannelError[] = [];
  private readonly decoder = new StringDecoder('utf8');
  private readonly clock: Clock;
  private readonly claims: ClaimWatch;
  private pending = '';
  private queue: Promise<void> = Promise.resolve();
  private pauseTimer: NodeJS.Timeout | undefined;
  /** The last answer written, and when by the harness's clock: the child's next line says when it arrived. */
  private lastAnswer: { seq: number; at: number } | undefined;
  private resumePause: (() => void) | undefined;
  private stopped = false;
  private readonly onData = (chunk: Buffer | string): void => this.receive(chunk);
  private readonly onClose = (): void => this.stop();
  // Kept after stop(): a write racing the child's death fails with EPIPE on a
  // channel nobody reads any more; that must not become an uncaught 'error'.
  private readonly onChannelError = (): void => this.stop();

  constructor(
    private readonly child: ControlledChild,
    private readonly channel: Duplex,
    private readonly options: ControllerOptions,
  ) {
    this.clock = options.clock ?? systemClock();
    this.claims = options.claims ?? new ClaimWatch();
    channel.on('data', this.onData);
    channel.on('close', this.onClose);
    channel.on('error', this.onChannelError);
  }

  /** Whether the controller still answers. */
  get active(): boolean {
    return !this.stopped;
  }

  /**
   * Stops answering: clears a pause in progress (continuing the group if it is
   * still stopped, so no process is left frozen), drops the listeners and closes
   * the channel, so a child still waiting reads EOF. Safe to call twice.
   */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.pauseTimer !== undefined) {
      clearTimeout(this.pauseTimer);
      this.pauseTimer = undefined;
      this.signal('SIGCONT');
    }
    this.resumePause?.();
    this.resumePause = undefined;
    this.channel.off('data', this.onData);
    this.channel.off('close', this.onClose);
    this.channel.destroy();
  }

  private receive(chunk: Buffer | string): void {
    // Every line of the chunk was sent before now: the bound its clock reading gives.
    const arrived = this.clock.now();
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    for (let newline = this.pending.indexOf('\n'); newline !== -1; newline = this.pending.indexOf('\n')) {
      const line = this.pending.slice(0, newline);
      this.pending = this.pending.slice(newline + 1);
      // One request at a time, in order, even if a pause is still running.
      this.queue = this.queue
        .then(() => this.handle(line, arrived))
        .catch((cause: unknown) =>
          this.fail(new ControlChannelError('QD_CONTROL_FAILED', `failpoint controller of ${this.who()} failed: ${String(cause)}`, { cause })),
        );
    }
  }

  private async handle(line: string, arrived: number): Promise<void> {
    if (this.stopped) return;
    const parsed = this.parse(line);
    if (parsed === undefined) return;
    if (parsed.reading) this.measure(parsed.reading, arrived);
    if ('report' in parsed) {
      this.keep(parsed, arrived);
      this.answer({ seq: parsed.seq, action: 'continue' });
      return;
    }
    const request = parsed;
    const { context } = request;
    if (context.point === 'after_claim' && context.jobKey !== undefined && context.attempt !== undefined)
      this.claims.seen(context.jobKey, context.attempt);
    const decision = this.options.plan.decide(context);
    if (decision === null) {
      this.record('hit', context, { type: 'continue' });
      this.answer({ seq: request.seq, action: 'continue' });
      return;
    }
    const { action, rule } = decision;
    this.record('fired', context, action, rule.id);
    const isActive = (): boolean => this.active;
    const control: FiringControl = {
      answer: (answer) => this.answer({ ...answer, seq: request.seq }),
      signal: (signal) => this.signal(signal),
      hold: (ms) => this.pause(ms),
      holdUntilClaimedAgain: async (ms) => {
        if (context.jobKey === undefined || context.attempt === undefined) {
          await this.pause(ms);
          return 'timed-out';
        }
        const later = this.claims.laterClaim(context.jobKey, context.attempt);
        let claimed = false;
        void later.claimed.then(() => {
          claimed = true;
          this.endPause();
        });
        await this.pause(ms);
        later.cancel();
        return claimed ? 'claimed' : 'timed-out';
      },
      claimedAgain: async (ms) => {
        if (context.jobKey === undefined || context.attempt === undefined) return 'timed-out';
        const later = this.claims.laterClaim(context.jobKey, context.attempt);
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<'timed-out'>((resolve) => {
          timer = setTimeout(() => resolve('timed-out'), ms);
        });
        try {
          return await Promise.race([later.claimed.then(() => 'claimed' as const), timedOut]);
        } finally {
          clearTimeout(timer);
          later.cancel();
        }
      },
      get active() {
        return isActive();
      },
      resumed: () => this.record('resumed', context, action, rule.id),
      restartServer: async () => {
        if (!this.options.restartServer) throw new Error("this drill's queue has no server the harness may restart");
        return this.options.restartServer();
      },
      network: () => {
        const link = this.options.network?.(this.child.name);
        if (!link) throw new Error(`${this.child.name} reaches its queue's servers directly: this drill put no fault proxy in its way`);
        return link;
      },
    };
    await pointFaultAction(action.type)!.fire(action as never, control);
  }

  // SIGSTOP past the lease, then SIGCONT: the zombie worker. The timer stays
  // ref'd: the pause must end, or the group stays frozen; stop() clears it.
  private pause(ms: number): Promise<void> {
    this.signal('SIGSTOP');
    return new Promise((resolve) => {
      this.resumePause = resolve;
      this.pauseTimer = setTimeout(() => {
        this.pauseTimer = undefined;
        this.resumePause = undefined;
        this.signal('SIGCONT');
        resolve();
      }, ms);
    });
  }

  // Ends a pause in progress now, as its timer would.
  private endPause(): void {
    if (this.pauseTimer === undefined) return;
    clearTimeout(this.pauseTimer);
    this.pauseTimer = undefined;
    const resume = this.resumePause;
    this.resumePause = undefined;
    this.signal('SIGCONT');
    resume?.();
  }

  private parse(line: string): FailpointRequest | ChannelReport | undefined {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined;
    }
    const request = value as Partial<FailpointRequest & ChannelReport> | undefined;
    const context = request?.context as Partial<FailpointContext> | undefined;
    const reading = request?.reading === undefined || isReading(request.reading);
    if (typeof request?.seq === 'number' && reading && request.report !== undefined && isReport(request.report)) {
      if (request.reading !== undefined) return request as ChannelReport;
    } else if (typeof request?.seq === 'number' && reading && isFailpointName(context?.point) && typeof context?.worker === 'string') {
      return request as FailpointRequest;
    }
    this.fail(
      new ControlChannelError(
        'QD_CONTROL_PROTOCOL',
        `${this.who()} sent a malformed line: ${JSON.stringify(line)}; expected a failpoint request ` +
          '{"seq":N,"pid":N,"context":{"point":<a FAILPOINTS name>,"worker":"..."}} or a report {"seq":N,"pid":N,"reading":{"clock":MS},"report":{...}}',
      ),
    );
    return undefined;
  }

  /** Bounds the child's clock offset by a line's reading: sent before it arrived; its last answer arrived after it was written. */
  private measure(reading: ClockReading, arrived: number): void {
    const answered = reading.answered;
    const last = this.lastAnswer;
    const high = answered && last && answered.seq === last.seq ? answered.clock - last.at : null;
    this.options.clocks?.bound(this.child, reading.clock - arrived, high);
  }

  /** Keeps a lease the child's queue granted, stamped with its arrival. */
  private keep(line: ChannelReport, arrived: number): void {
    const { report } = line;
    if (report.kind !== 'lease') return;
    const { kind: _kind, ...lease } = report;
    this.options.clocks?.leases.push({ ...lease, process: this.child.name, at: new Date(arrived).toISOString() });
  }

  private fail(error: ControlChannelError): void {
    this.errors.push(error);
    this.stop();
    this.options.onError?.(error);
  }

  private who(): string {
    return `${this.child.name}#${this.child.incarnation} (pid ${this.child.pid})`;
  }

  private answer(answer: FailpointAnswer): void {
    if (this.stopped) return;
    // Stamped before it is written: it cannot arrive earlier.
    this.lastAnswer = { seq: answer.seq, at: this.clock.now() };
    this.channel.write(`${JSON.stringify(answer)}\n`);
  }

  private signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // The group is already gone.
    }
  }

  private record(kind: ControlEvent['kind'], context: FailpointContext, action: ControlEvent['action'], rule?: string): void {
    const event: ControlEvent = {
      at: this.clock.now(),
      child: this.child.name,
      incarnation: this.child.incarnation,
      pid: this.child.pid,
      kind,
      point: context.point,
      context,
      action,
      ...(rule !== undefined ? { rule } : {}),
    };
    this.events.push(event);
    this.options.onEvent?.(event);
  }
}

/** The supervisor's `control` option for a plan: one controller per spawned child, all sharing the plan. */
export function controlWith(options: ControllerOptions): ControlFactory {
  const shared = { ...options, claims: options.claims ?? new ClaimWatch() };
  return (child, channel) => new FailpointController(child, channel, shared);
}

function isReading(value: unknown): value is ClockReading {
  const reading = value as Partial<ClockReading> | null;
  if (typeof reading !== 'object' || reading === null || !Number.isFinite(reading.clock)) return false;
  const answered = reading.answered;
  return answered === undefined || (typeof answered === 'object' && Number.isInteger(answered?.seq) && Number.isFinite(answered?.clock));
}

function isReport(value: unknown): value is ChannelReport['report'] {
  const report = value as Partial<Extract<ChannelReport['report'], { kind: 'lease' }>> | { kind?: unknown } | null;
  if (typeof report !== 'object' || report === null) return false;
  if (report.kind === 'clock') return true;
  if (report.kind !== 'lease') return false;
  const lease = report as Partial<Extract<ChannelReport['report'], { kind: 'lease' }>>;
  return (
    typeof lease.job === 'string' &&
    typeof lease.worker === 'string' &&
    typeof lease.leaseUntil === 'string' &&
    Number.isInteger(lease.attempt) &&
    Number.isInteger(lease.epoch) &&
    (lease.by === 'claim' || lease.by === 'renewal')
  );
}
