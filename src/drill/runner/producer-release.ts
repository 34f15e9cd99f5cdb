import { utc } from '../../kernel/clock.js';
import { RELEASE_LEAD_MS, readyNames, release } from '../../kernel/start-barrier.js';
import { producersReleasedNote } from '../../report/producers-release.js';
import type { Timeline } from '../timeline.js';

/** Whether the producers can be let go: each has said it is ready, or has died before it could (it goes at once when restarted). */
export function readyToRelease(producers: readonly string[], ready: ReadonlySet<string>, exited: (name: string) => boolean): boolean {
  return producers.every((name) => ready.has(name) || exited(name));
}

/**
 * The harness's side of the producers' start barrier (src/kernel/start-barrier.ts):
 * once every producer is connected and waiting, it lets them all go at one
 * instant just ahead, once, and writes on the timeline who went and when.
 */
export class ProducerRelease {
  /** When the producers were let go (epoch ms; the drill's deadline counts from here), or null while they are not. */
  releasedAt: number | null = null;

  constructor(
    private readonly dir: string,
    private readonly producers: readonly string[],
    private readonly timeline: Timeline,
  ) {}

  /** Whether the producers are still starting: not all of them ready, none let go. */
  get waiting(): boolean {
    return this.releasedAt === null && this.producers.length > 0;
  }

  /** Releases the producers if they are all ready and have not been released yet. */
  tend(exited: (name: string) => boolean, now: number): void {
    if (this.releasedAt !== null) return;
    if (this.producers.length === 0) {
      this.releasedAt = now;
      return;
    }
    const ready = new Set(readyNames(this.dir));
    if (!readyToRelease(this.producers, ready, exited)) return;
    const at = now + RELEASE_LEAD_MS;
    release(this.dir, at);
    this.releasedAt = at;
    const went = this.producers.filter((name) => ready.has(name));
    const died = this.producers.filter((name) => !ready.has(name));
    this.timeline.record('note', producersReleasedNote(went, utc(at), died));
  }
}
