import type { ServerResponse } from 'node:http';

/*
 * The delay fault holds an answer for up to ten minutes. A world that is
 * closing must not wait for those timers, and a caller that hung up needs no
 * answer, so every hold can be ended early; the handler then answers nothing.
 */

/** The answers a world is holding back, each ended by its timer, its caller hanging up, or stopAll(). */
export class DelayedAnswers {
  private readonly pending = new Set<() => void>();

  /** Waits ms; false if the caller hung up or the world is closing, so nobody is left to answer. */
  hold(ms: number, res: ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (answer: boolean): void => {
        clearTimeout(timer);
        res.off('close', gone);
        this.pending.delete(stop);
        resolve(answer);
      };
      const gone = (): void => done(false);
      const stop = (): void => done(false);
      const timer = setTimeout(() => done(true), ms);
      res.once('close', gone);
      this.pending.add(stop);
    });
  }

  /** Ends every hold now (each resolves false) and clears its timer. */
  stopAll(): void {
    for (const stop of [...this.pending]) stop();
  }
}
