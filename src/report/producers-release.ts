import type { ScenarioReport } from './schema.js';

/*
 * When a scenario's producers were let go (src/drill/runner/producer-release.ts):
 * the harness holds them at a start barrier until every one is up, then
 * releases them at one instant just ahead and writes a `note` on the
 * timeline saying who went and at what time (written and read here, so the
 * two cannot drift apart). Everything before it is the processes starting up;
 * the drill proper begins there.
 */

const RELEASED = /\breleased to begin enqueueing (?:together )?at (\S+)/;

/** The note the harness writes when it lets the producers go at `at` (`died`: those that died before they were ready). */
export function producersReleasedNote(went: readonly string[], at: string, died: readonly string[]): string {
  return (
    `producers ${went.join(', ') || '(none)'} released to begin enqueueing together at ${at}` +
    `${died.length > 0 ? ` (${died.join(', ')} died before it was ready, and begins when restarted)` : ''}`
  );
}

/** The note the harness writes when its own producer (src/drill/runner/hosted-producer.ts) begins at `at`. */
export function hostedProducerReleasedNote(name: string, at: string, jobs: number): string {
  return `${name}, the harness's own producer (nothing of this scenario can reach a producer), released to begin enqueueing at ${at}: ${jobs} job(s)`;
}

/** When the producers were released (epoch ms), from the timeline's note; null when the timeline has none (no producers, an older report). */
export function producersReleasedAt(scenario: Pick<ScenarioReport, 'timeline'>): number | null {
  for (const event of scenario.timeline) {
    if (event.kind !== 'note') continue;
    const match = RELEASED.exec(event.detail);
    if (match === null) continue;
    // The note is written when the harness decides; the instant it names, a moment later, is when they went (a
    // note that names none, a hand-made one, counts from when it was written).
    const at = Date.parse(match[1]!);
    return Number.isFinite(at) ? at : Date.parse(event.at);
  }
  return null;
}
