/**
 * Drills that may share the machine, and drills that may not: a scenario that
 * restarts the queue's server cuts every connection of every drill on that
 * server, so it runs alone. An exclusive run waits until the shared runs
 * under way have finished, and no shared run starts while one waits or runs
 * (so it is never starved by a stream of shared ones).
 */
export class ExclusiveGate {
  private running = 0;
  private exclusiveWaiting = 0;
  private exclusiveRunning = false;
  private readonly wakers: Array<() => void> = [];

  /** Runs `task` beside other shared ones, once no exclusive run waits or runs. */
  shared<T>(task: () => Promise<T>): Promise<T> {
    return this.enter(() => this.exclusiveWaiting === 0 && !this.exclusiveRunning, false, task);
  }

  /** Runs `task` alone, once every run under way has finished. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    this.exclusiveWaiting++;
    return this.enter(() => this.running === 0 && !this.exclusiveRunning, true, task);
  }

  private async enter<T>(free: () => boolean, alone: boolean, task: () => Promise<T>): Promise<T> {
    while (!free()) await new Promise<void>((resolve) => this.wakers.push(resolve));
    if (alone) {
      this.exclusiveWaiting--;
      this.exclusiveRunning = true;
    } else this.running++;
    try {
      return await task();
    } finally {
      if (alone) this.exclusiveRunning = false;
      else this.running--;
      for (const wake of this.wakers.splice(0)) wake();
    }
  }
}
