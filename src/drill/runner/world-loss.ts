import type { ChildExit } from '../../harness/supervisor.js';
import type { Timeline } from '../timeline.js';

/*
 * The world a scenario's jobs call is the harness's, not the queue's: when
 * its process dies under the drill (a world host SIGKILLed, out of memory),
 * every call after that fails for a reason the queue had no part in, so the
 * drill ends there as an error naming the process, rather than be judged.
 */
export class WorldLoss {
  private readonly lost = new AbortController();
  private why: string | null = null;
  private ended = false;

  constructor(world: { pid: number; exited: Promise<ChildExit> }, timeline: Timeline) {
    void world.exited.then((exit) => {
      if (this.ended) return;
      this.why =
        `the world's process (pid ${world.pid}) ${exitText(exit)} during the drill: ` +
        "every call the jobs made after that failed for the harness's reason, not the queue's";
      timeline.record('note', this.why);
      this.lost.abort(this.why);
    });
  }

  /** Aborted when the world's process exits before end(). */
  get signal(): AbortSignal {
    return this.lost.signal;
  }

  /** The drill is over (its world is closed next, on purpose): why the world was lost, or null when it was not. */
  end(): string | null {
    this.ended = true;
    return this.why;
  }
}

function exitText(exit: ChildExit): string {
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.exitCode ?? '?'}`;
}
