import { statSync } from 'node:fs';
import type { ControlFactory } from '../../faults/control-channel.js';
import type { Child, Supervisor } from '../../harness/supervisor.js';
import { HarnessError } from '../../kernel/errors.js';
import type { Settings } from '../../scenarios/schema.js';
import type { Timeline } from '../timeline.js';
import { entryFailed, lastErrorLine } from './exit-reason.js';
import { afterExit } from './restart-decision.js';
import type { RoleSpec } from './role-args.js';

/** One process of the drill, across its restarts. */
interface Role extends RoleSpec {
  child: Child;
  restarts: number;
  /** Done with: a producer that finished, or a process not to be restarted. */
  finished: boolean;
  /** When it is to be started again (epoch ms), or null. */
  restartAt: number | null;
  /** This incarnation has written its first log line (it is up: loaded, connected to its queue). */
  spoke: boolean;
  /** When this incarnation was spawned (epoch ms): its start-up runs from here to its first line. */
  spawnedAt: number;
  /** How many incarnations in a row exited on their own before their first line (a start that failed). */
  failedStarts: number;
}

/**
 * How many starts in a row may fail to load the drill's own code before the
 * drill gives up on a process: one whose entry is gone (dist/ rebuilt under a
 * running drill) or broken exercises no recovery, so the drill is the
 * harness's error, not a queue's failure judged from jobs nobody could run. A
 * start that fails in the queue's hands (its server down for a restart or a
 * partition) is the restart rule's business, as before.
 */
const FAILED_STARTS_LIMIT = 3;

/**
 * The drill's processes under the scenario's restart rule: each started under
 * the fault plan's control, each start and exit on the timeline, each one that
 * died started again when the rule says so (or noted as left down).
 */
export class DrillProcesses {
  private readonly roles: Role[] = [];

  constructor(
    private readonly supervisor: Supervisor,
    private readonly control: ControlFactory,
    private readonly timeline: Timeline,
    private readonly restart: Settings['restart'],
    /** What a process's environment is given besides the drill's (its servers through its own fault proxies). */
    private readonly envFor: (name: string) => Record<string, string> = () => ({}),
  ) {}

  /** The process `name`'s current incarnation, as the timeline names it; undefined for a name not started. */
  current(name: string): { name: string; pid: number } | undefined {
    const role = this.roles.find((r) => r.name === name);
    return role && this.processOf(role);
  }

  /** Starts a process of the drill. */
  start(spec: RoleSpec): void {
    this.roles.push({
      ...spec,
      child: this.spawn(spec),
      restarts: 0,
      finished: false,
      restartAt: null,
      spoke: false,
      spawnedAt: Date.now(),
      failedStarts: 0,
    });
  }

  /** A producer has not yet finished its part. */
  get producing(): boolean {
    return this.roles.some((r) => r.kind === 'producer' && !r.finished);
  }

  /** Whether the process `name` has died or ended at least once (it may have been started again since). */
  hasExited(name: string): boolean {
    const role = this.roles.find((r) => r.name === name);
    return role !== undefined && (role.restarts > 0 || role.finished || !role.child.alive);
  }

  /** A process waits to be started again. */
  get restarting(): boolean {
    return this.roles.some((r) => r.restartAt !== null);
  }

  /**
   * A process is still starting: spawned, alive, and silent so far (each logs a line once it has loaded and
   * connected to its queue). Producers that wait at the start barrier are left to it (producer-release.ts);
   * a producer started to enqueue again has none, and its start is the machine's time too.
   */
  get starting(): boolean {
    return this.roles.some((role) => this.isStarting(role));
  }

  /** Whether the process `name` is still starting (as for `starting`); false for a name not started. */
  startingNamed(name: string): boolean {
    return this.roles.some((role) => role.name === name && this.isStarting(role));
  }

  private isStarting(role: Role): boolean {
    return role.child.alive && !role.finished && !role.args.includes('--start-barrier') && !this.hasSpoken(role);
  }

  /**
   * Notes each process that has written its first line since the last look: a `ready` event on the timeline
   * with its start-up time (spawn to first line), which the judge weighs as starvation past a normal start.
   */
  tendReadiness(): void {
    for (const role of this.roles) if (role.child.alive) this.hasSpoken(role);
  }

  /** Whether this incarnation has written its first line; the first time it is seen to have, a `ready` event. */
  private hasSpoken(role: Role): boolean {
    if (role.spoke) return true;
    try {
      role.spoke = statSync(role.child.logFile).size > 0;
    } catch {
      // Not created yet: the process has not spoken.
    }
    if (role.spoke) {
      const ms = Math.max(0, Date.now() - role.spawnedAt);
      this.timeline.record('ready', `${role.kind} ${role.name} up ${ms} ms after its start`, this.processOf(role), { ms });
    }
    return role.spoke;
  }

  private processOf(role: Role): { name: string; pid: number } {
    return { name: `${role.name}#${role.child.incarnation}`, pid: role.child.pid };
  }

  /** Applies the restart rule to every process that is down, as of `now`. */
  async tend(now: number): Promise<void> {
    for (const role of this.roles) {
      if (role.child.alive || role.finished) continue;
      if (role.restartAt === null) {
        const exit = await role.child.exited;
        this.countFailedStart(role, exit);
        const decision = afterExit(role, exit, this.restart, now);
        if (decision.kind === 'restart') role.restartAt = decision.at;
        else role.finished = true;
        if (decision.kind === 'not-restarted') this.timeline.record('note', `${role.name} is not restarted (${decision.why})`);
      } else if (now >= role.restartAt) {
        role.child = this.spawn(role);
        role.spoke = false;
        role.spawnedAt = Date.now();
        role.restarts++;
        role.restartAt = null;
      }
    }
  }

  /** Counts a start whose code could not load (an exit before the first line, Node naming the entry); three in a row end the drill as an error. */
  private countFailedStart(role: Role, exit: { exitCode: number | undefined; signal?: string | undefined }): void {
    const why = exit.signal || exit.exitCode === 0 || this.hasSpoken(role) ? null : lastErrorLine(`${role.child.logFile}.err`);
    role.failedStarts = why !== null && entryFailed(why) ? role.failedStarts + 1 : 0;
    if (role.failedStarts < FAILED_STARTS_LIMIT) return;
    throw new HarnessError(
      'QD_PROCESS_NEVER_STARTED',
      `${role.kind} ${role.name} exited ${role.failedStarts} times in a row before its first line (${why}): ` +
        'the drill could not start its processes, so nothing of the queue is judged',
    );
  }

  private spawn(spec: RoleSpec): Child {
    const child = this.supervisor.spawn(spec.name, spec.args, { control: this.control, env: this.envFor(spec.name) });
    const process = { name: `${spec.name}#${child.incarnation}`, pid: child.pid };
    this.timeline.record(child.incarnation === 1 ? 'spawn' : 'restart', `${spec.kind} ${spec.name}`, process);
    void child.exited.then((exit) => {
      const why = !exit.signal && exit.exitCode !== 0 ? lastErrorLine(`${child.logFile}.err`) : null;
      const what = exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`;
      const how = exit.signal ? { signal: exit.signal } : { exitCode: exit.exitCode };
      this.timeline.record('exit', why ? `${what}: ${why}` : what, process, how);
    });
    return child;
  }
}
