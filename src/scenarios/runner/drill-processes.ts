import { statSync } from 'node:fs';
import type { ControlFactory } from '../../faults/control-channel.js';
import type { Child, Supervisor } from '../../harness/supervisor.js';
import type { Settings } from '../schema.js';
import type { Timeline } from '../timeline.js';
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
}

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
  ) {}

  /** Starts a process of the drill. */
  start(spec: RoleSpec): void {
    this.roles.push({ ...spec, child: this.spawn(spec), restarts: 0, finished: false, restartAt: null, spoke: false });
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
   * A worker or the coordinator is still starting: spawned, alive, and silent so far (each logs a line once it has
   * loaded and connected to its queue). Producers are left to their start barrier (producer-release.ts).
   */
  get starting(): boolean {
    return this.roles.some((role) => role.kind !== 'producer' && role.child.alive && !role.finished && !this.hasSpoken(role));
  }

  private hasSpoken(role: Role): boolean {
    if (!role.spoke) {
      try {
        role.spoke = statSync(role.child.logFile).size > 0;
      } catch {
        // Not created yet: the process has not spoken.
      }
    }
    return role.spoke;
  }

  /** Applies the restart rule to every process that is down, as of `now`. */
  async tend(now: number): Promise<void> {
    for (const role of this.roles) {
      if (role.child.alive || role.finished) continue;
      if (role.restartAt === null) {
        const decision = afterExit(role, await role.child.exited, this.restart, now);
        if (decision.kind === 'restart') role.restartAt = decision.at;
        else role.finished = true;
        if (decision.kind === 'not-restarted') this.timeline.record('note', `${role.name} is not restarted (${decision.why})`);
      } else if (now >= role.restartAt) {
        role.child = this.spawn(role);
        role.spoke = false;
        role.restarts++;
        role.restartAt = null;
      }
    }
  }

  private spawn(spec: RoleSpec): Child {
    const child = this.supervisor.spawn(spec.name, spec.args, { control: this.control });
    const process = { name: `${spec.name}#${child.incarnation}`, pid: child.pid };
    this.timeline.record(child.incarnation === 1 ? 'spawn' : 'restart', `${spec.kind} ${spec.name}`, process);
    void child.exited.then((exit) => this.timeline.record('exit', exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.exitCode}`, process));
    return child;
  }
}
