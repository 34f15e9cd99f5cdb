import { execa, type ResultPromise } from 'execa';
import { join } from 'node:path';
import { CLI_PATH } from './cli-path.js';

/*
 * Owns every child process of a drill. Each child runs in its own process group
 * (detached), so a kill reaches whatever it started too; stopAll() escalates
 * SIGTERM to SIGKILL; and a last-resort 'exit' handler SIGKILLs any group still
 * alive, so no child outlives its parent, however the parent ends.
 */

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

export class Supervisor {
  private readonly children: Child[] = [];
  private readonly incarnations = new Map<string, number>();

  constructor(private readonly logDir: string) {
    installExitHook();
  }

  /** Starts `queue-drill ARGS...` as child `name`, its stdout and stderr in its own log file. */
  spawn(name: string, args: readonly string[]): Child {
    const incarnation = (this.incarnations.get(name) ?? 0) + 1;
    this.incarnations.set(name, incarnation);
    const logFile = join(this.logDir, `${name}.${incarnation}.log`);
    const subprocess: ResultPromise = execa(process.execPath, [CLI_PATH, ...args], {
      detached: true,
      cleanup: false,
      reject: false,
      stdin: 'ignore',
      stdout: { file: logFile },
      stderr: { file: `${logFile}.err` },
    });
    const pid = subprocess.pid;
    if (pid === undefined) throw new Error(`could not start ${name}: ${args.join(' ')}`);
    liveGroups.add(pid);
    const child: Child = {
      name,
      incarnation,
      pid,
      logFile,
      alive: true,
      exited: subprocess.then((result) => {
        child.alive = false;
        liveGroups.delete(pid);
        // The leader is gone; take anything it left in its group with it.
        killGroup(pid, 'SIGKILL');
        return { exitCode: result.exitCode, signal: result.signal };
      }),
    };
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
    for (const child of live) this.signal(child, 'SIGTERM');
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
