import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { ControlFactory, ControlHandler } from '../faults/control-channel.js';
import { CONTROL_FD_ENV } from '../faults/points.js';
import { STARVED_LOG_ENV } from '../kernel/starvation-watch.js';
import { WITHOUT_CA_BUNDLE } from './ca-bundle.js';
import { CLI_PATH } from './cli-path.js';
import { keepFreedHeap } from './heap-trim.js';
import { reaperEnv } from './reaper.js';

/*
 * Owns every child process of a drill. Each child runs in its own process group
 * (detached), so a kill reaches whatever it started too; stopAll() escalates
 * SIGTERM to SIGKILL; a last-resort 'exit' handler SIGKILLs any group still
 * alive; and where no handler can run (the parent SIGKILLed), the reaper
 * (./reaper.ts) does it: no child outlives its parent, however the parent ends.
 *
 * A child spawned with `control` also gets a failpoint control channel: one
 * extra stdio 'pipe' at fd 3 (a Unix socketpair; see src/faults/failpoint.ts
 * for why), named to the child by QUEUE_DRILL_CONTROL_FD=3, and served by the
 * handler the `control` factory returns until the child exits.
 */

/** What a child's starved-spans file adds to its log file's name: w1.2.log.starved. */
export const STARVED_SUFFIX = '.starved';

/** The file descriptor of a child's control channel, the first after stdin, stdout, stderr. */
const CONTROL_FD = 3;

export interface ChildExit {
  exitCode: number | undefined;
  signal: string | undefined;
}

/** One incarnation of a named child: a restart is a new Child with the same name. */
export interface Child {
  name: string;
  incarnation: number;
  pid: number;
  logFile: string;
  exited: Promise<ChildExit>;
  alive: boolean;
  /** Serves the child's failpoints, if it was spawned with `control`. */
  control?: ControlHandler;
}

export type { ControlFactory, ControlHandler } from '../faults/control-channel.js';

/** How to start one child. */
export interface SpawnOptions {
  /** Open a failpoint control channel and serve it with this handler. @default none: every failpoint is a no-op */
  control?: ControlFactory;
  /** The compiled JS file the child runs (test fixtures run their own). @default CLI_PATH, the queue-drill CLI */
  script?: string;
  /** Added to this child's environment over the supervisor's (its own servers' URLs, say). */
  env?: Readonly<Record<string, string>>;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone: nothing to do.
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  });
}

/**
 * Starts a process in a group of its own, its stdout and stderr appended to `logFile` and `logFile`.err, which
 * it writes itself (opened here, handed over as they are: nothing of its output passes through this process),
 * with a control channel at fd 3 (a socketpair) if `control`.
 */
function startWithLogs(file: string, args: readonly string[], logFile: string, env: NodeJS.ProcessEnv, control: boolean): ChildProcess {
  const out = openSync(logFile, 'a');
  const err = openSync(`${logFile}.err`, 'a');
  try {
    const child = spawn(file, args, { detached: true, env, stdio: ['ignore', out, err, ...(control ? ['pipe' as const] : [])] });
    // A start that failed (no pid: the caller throws) or a signal that could not be sent: never an uncaught 'error'.
    child.on('error', () => undefined);
    return child;
  } finally {
    closeSync(out);
    closeSync(err);
  }
}

export class Supervisor {
  private readonly children: Child[] = [];
  private readonly incarnations = new Map<string, number>();

  /**
   * `env` is added to every child's environment (a queue's server URL, say). With `starvation`, each child
   * measures the time it was not run, into a file beside its log (src/kernel/starvation-watch.ts): a drill's
   * processes do; a benchmark's do not, so its hot path carries no timer of the harness's. With `caBundle: false`,
   * children start without NODE_EXTRA_CA_CERTS (./ca-bundle.ts): for children that connect only to this machine.
   * With `keepFreedHeap`, children's malloc keeps freed heap rather than returning it at once (./heap-trim.ts): for
   * the drill's own processes, which open SQLite files, never a user's queue process.
   */
  constructor(
    private readonly logDir: string,
    private readonly env: Readonly<Record<string, string>> = {},
    private readonly options: { starvation?: boolean; caBundle?: boolean; keepFreedHeap?: boolean } = {},
  ) {
    installExitHook();
  }

  /** Starts `queue-drill ARGS...` (or `options.script`) as child `name`, its stdout and stderr in its own log file. */
  spawn(name: string, args: readonly string[], options: SpawnOptions = {}): Child {
    const incarnation = (this.incarnations.get(name) ?? 0) + 1;
    this.incarnations.set(name, incarnation);
    const logFile = join(this.logDir, `${name}.${incarnation}.log`);
    const script = options.script ?? CLI_PATH;
    const env = {
      ...process.env,
      ...this.env,
      ...options.env,
      ...reaperEnv(),
      ...(this.options.caBundle === false ? WITHOUT_CA_BUNDLE : {}),
      ...(this.options.keepFreedHeap ? keepFreedHeap() : {}),
      ...(this.options.starvation ? { [STARVED_LOG_ENV]: `${logFile}${STARVED_SUFFIX}` } : {}),
      ...(options.control ? { [CONTROL_FD_ENV]: String(CONTROL_FD) } : {}),
    };
    const subprocess = startWithLogs(process.execPath, [script, ...args], logFile, env, options.control !== undefined);
    const pid = subprocess.pid;
    if (pid === undefined) throw new Error(`could not start ${name}: ${args.join(' ')}`);
    liveGroups.add(pid);
    const exited = new Promise<ChildExit>((resolve) => {
      subprocess.on('exit', (code, signal) => resolve({ exitCode: code ?? undefined, signal: signal ?? undefined }));
    });
    const child: Child = {
      name,
      incarnation,
      pid,
      logFile,
      alive: true,
      exited: exited.then((exit) => {
        child.alive = false;
        liveGroups.delete(pid);
        child.control?.stop();
        // The leader is gone; take anything it left in its group with it.
        killGroup(pid, 'SIGKILL');
        return exit;
      }),
    };
    if (options.control) {
      const channel = subprocess.stdio[CONTROL_FD] as Duplex | undefined;
      if (!channel) throw new Error(`could not open the control channel of ${name}`);
      // Attached before any data can arrive: stream events are delivered asynchronously.
      child.control = options.control(child, channel);
    }
    this.children.push(child);
    return child;
  }

  /** Sends a signal to a child's whole process group. */
  signal(child: Child, signal: NodeJS.Signals): void {
    if (child.alive) killGroup(child.pid, signal);
  }

  /** SIGKILLs a child (the crash fault) and waits until it is gone. */
  async crash(child: Child): Promise<ChildExit> {
    this.signal(child, 'SIGKILL');
    return child.exited;
  }

  /** Every child started, in order, all incarnations. */
  all(): readonly Child[] {
    return this.children;
  }

  /** SIGTERM to every live child; SIGKILL to those still alive after `graceMs`. Safe to call twice. */
  async stopAll(graceMs = 2_000): Promise<void> {
    const live = this.children.filter((child) => child.alive);
    for (const child of live) {
      this.signal(child, 'SIGTERM');
      // A child held by a pause fault is stopped and would act on SIGTERM only when continued.
      this.signal(child, 'SIGCONT');
    }
    const escalation = setTimeout(() => {
      for (const child of live) this.signal(child, 'SIGKILL');
    }, graceMs);
    escalation.unref();
    try {
      await Promise.all(live.map((child) => child.exited));
    } finally {
      clearTimeout(escalation);
    }
  }
}
