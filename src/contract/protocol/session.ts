import { ChildChannel } from '../../adapters/process/child-channel.js';
import { ProtocolError } from '../../adapters/process/protocol.js';
import { PROTOCOL_SCHEMA_FILE } from '../../adapters/process/protocol-json-schema.js';
import { deliverProblems, okBodyProblems } from '../../adapters/process/wire-problems.js';

/** How long the check waits for any one answer or delivery on a quiet machine (time scale 1) before it calls it missing. */
export const ANSWER_TIMEOUT_MS = 5_000;

/**
 * The answer timeout at time scale `scale`: ANSWER_TIMEOUT_MS stretched on a
 * busy machine (a starved child takes seconds to say hello), never shortened
 * below it, since a scale under 1 makes nothing about a child faster.
 */
export function answerTimeoutAt(scale: number): number {
  return Math.round(ANSWER_TIMEOUT_MS * Math.max(1, scale));
}

/** A step that failed: the protocol message at fault, and why. */
export class StepFailure extends Error {
  constructor(
    /** The message (request or event) that was wrong or missing: `settle`, `deliver`, `stdout`. */
    readonly about: string,
    why: string,
  ) {
    super(why);
  }
}

/**
 * An ok body of `op`, checked against the op's schema (protocol.schema.json)
 * before any check of a step reads it: a wrong one fails the step, naming `op`
 * and each field at fault (`snapshot.jobs[0].status: expected one of …`).
 */
export function schemaChecked(op: string, body: Record<string, unknown>): Record<string, unknown> {
  const problems = okBodyProblems(op, body);
  if (problems.length > 0) throw new StepFailure(op, schemaFailure(problems, `ok.${op}`));
  return body;
}

function schemaFailure(problems: readonly string[], definition: string): string {
  return `${problems.join('; ')} (${PROTOCOL_SCHEMA_FILE}#/definitions/${definition})`;
}

/** How a child under check is started. */
export interface SessionOptions {
  /** The drill's clock, carried by every request. */
  now: () => number;
  /** How long any one answer or delivery is waited for (every request the session sends, its `work` too). @default ANSWER_TIMEOUT_MS */
  answerTimeoutMs?: number;
}

/**
 * One child under check: its channel, every line on its stdout that was not
 * the protocol's (a violation, blamed on the step that saw it), and the
 * deliveries it sent, waited for one at a time.
 */
export class Session {
  readonly channel: ChildChannel;
  readonly violations: string[] = [];
  /** The deliver events not yet waited for, whole (each is checked against its schema when a step takes it). */
  private readonly deliveries: unknown[] = [];
  private wake: (() => void) | null = null;
  /** How long any one answer or delivery is waited for; a step that sends a request of its own uses it too. */
  readonly answerTimeoutMs: number;

  constructor(argv: readonly string[], options: SessionOptions) {
    this.answerTimeoutMs = options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS;
    this.channel = new ChildChannel(argv, {
      now: options.now,
      stderr: 'pipe',
      requestTimeoutMs: this.answerTimeoutMs,
      onViolation: (what) => this.violations.push(what),
      onEvent: (event) => {
        if (event.event === 'deliver') this.deliveries.push(event);
        else this.violations.push(`an event the protocol does not know: ${JSON.stringify(event).slice(0, 200)}`);
        this.wake?.();
      },
    });
  }

  /** Sends `op` and returns the ok body, held to the op's schema; any other answer, or a body the schema refuses, fails the step, naming `op`. */
  async ok(op: string, fields: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    let body: Record<string, unknown>;
    try {
      body = await this.channel.request(op, fields, this.answerTimeoutMs);
    } catch (error) {
      throw new StepFailure(op, error instanceof ProtocolError ? `expected ok, got ${error.message}` : String(error));
    }
    return schemaChecked(op, body);
  }

  /** Sends `op` and returns its failure; an ok answer fails the step. */
  async failure(op: string, fields: Record<string, unknown>, expected: string): Promise<ProtocolError> {
    try {
      const body = await this.channel.request(op, fields, this.answerTimeoutMs);
      throw new StepFailure(op, `answered ok ${JSON.stringify(body).slice(0, 200)}; expected ${expected}`);
    } catch (error) {
      if (error instanceof ProtocolError) return error;
      throw error;
    }
  }

  /** The next delivery (the event's claim, the event held to its schema first), or a failure naming `deliver` when none comes in time. */
  async nextDelivery(why: string): Promise<unknown> {
    const deadline = Date.now() + this.answerTimeoutMs;
    while (this.deliveries.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0 || this.channel.hasExited) throw new StepFailure('deliver', `no deliver event within ${this.answerTimeoutMs} ms ${why}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    const event = this.deliveries.shift();
    const problems = deliverProblems(event);
    if (problems.length > 0) throw new StepFailure('deliver', schemaFailure(problems, 'deliver'));
    return (event as { delivery?: unknown }).delivery;
  }

  /** Closes the child's stdin and waits for it to go. */
  async close(): Promise<void> {
    await this.channel.close();
  }
}
