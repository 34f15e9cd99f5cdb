import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildHello } from '../../adapters/process/hello.js';
import { text } from '../../adapters/process/protocol.js';
import { serversOnTheWire } from '../../adapters/process/saga-file.js';
import { resolveServers } from '../../port/servers.js';
import { ANSWER_TIMEOUT_MS, Session, StepFailure } from './session.js';

/** The settings every queue under check is opened with: leases that outlast a step, retries that do not come back during one. */
export const CHECK_SETTINGS = {
  lease_ms: 10_000,
  skew_margin_ms: 0,
  retry_delay: { base_ms: 60_000, cap_ms: 240_000, jitter_ms: 1_000 },
  seed: 7,
};

/**
 * What a step of the check works with: the command, what its hello said,
 * fresh queues (each provisioned by the child in a directory of its own),
 * children opened on them, and the drill's clock, which a step may move.
 * Every child waits `answerTimeoutMs` for each answer and delivery (the
 * check's, stretched by --time-scale on a busy machine).
 * Every child a step starts is closed after it, and every line one of them
 * wrote on stdout outside the protocol fails that step.
 */
export class CheckContext {
  hello: ChildHello | null = null;
  private offsetMs = 0;
  private sessions: Session[] = [];
  private readonly root = mkdtempSync(join(tmpdir(), 'queue-drill-protocol-check-'));
  private queues = 0;

  constructor(
    readonly argv: readonly string[],
    /** How long every child started is given for any one answer or delivery. @default ANSWER_TIMEOUT_MS */
    readonly answerTimeoutMs: number = ANSWER_TIMEOUT_MS,
  ) {}

  /** The drill's clock as every request shows it. */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Moves the drill's clock forward (a child on the caller's clock sees it with the next request). */
  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** A child started, not yet asked anything. */
  start(): Session {
    const session = new Session(this.argv, { now: () => this.now(), answerTimeoutMs: this.answerTimeoutMs });
    this.sessions.push(session);
    return session;
  }

  /** A fresh, empty queue: its locator, from the child's `provision` (protocol 2: on the servers the environment names). */
  async freshQueue(): Promise<string> {
    const session = this.start();
    const run = ++this.queues;
    const body = await session.ok('provision', {
      run_dir: mkdtempSync(join(this.root, `q${run}-`)),
      run_id: `check-${process.pid}-${run}`,
      servers: this.servers,
    });
    const locator = text(body, 'locator', 'the answer to provision');
    this.provisioned.push(locator);
    return locator;
  }

  /** The servers every provision, open and teardown names: the environment's (QD_PG_URL, QD_REDIS_URL), as a drill's would. */
  readonly servers = serversOnTheWire(resolveServers({}));

  /** Every queue the check provisioned, for a protocol 2 child to remove at the end. */
  readonly provisioned: string[] = [];

  /** A child opened on `locator` (with the check's settings, and any given). */
  async open(locator: string, settings: Partial<typeof CHECK_SETTINGS> = {}): Promise<Session> {
    const session = this.start();
    await session.ok('open', { store: locator, servers: this.servers, ...CHECK_SETTINGS, ...settings });
    return session;
  }

  /** Closes every child the step started; the first violation any of them made fails the step. */
  async endStep(): Promise<void> {
    const sessions = this.sessions;
    this.sessions = [];
    await Promise.all(sessions.map((s) => s.close()));
    const violation = sessions.flatMap((s) => s.violations)[0];
    if (violation) throw new StepFailure('stdout', violation);
  }

  /**
   * Removes the check's queues: a protocol 2 child's on a server by its teardown (one that fails is the
   * teardown step's to find, not this); files with the root.
   */
  async dispose(): Promise<void> {
    if (this.hello?.locatorKind === 'name' && this.hello.ops.has('teardown')) {
      const session = this.start();
      for (const locator of this.provisioned)
        await session.channel.request('teardown', { store: locator, keep: false, servers: this.servers }).catch(() => undefined);
      await this.endStep().catch(() => undefined);
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
