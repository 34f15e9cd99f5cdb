import type { TimelineEvent } from '../judge/evidence.js';
import { type Clock, utc } from '../kernel/clock.js';

/** Where a process was, for an event at a failpoint (or how it ended, for an exit). */
export type TimelinePlace = Pick<TimelineEvent, 'point' | 'action' | 'ms' | 'worker' | 'job' | 'attempt' | 'step' | 'exitCode' | 'signal'>;

/** The harness's own record of what it saw and did during one drill, in order. */
export class Timeline {
  readonly events: TimelineEvent[] = [];

  constructor(private readonly clock: Clock) {}

  record(kind: TimelineEvent['kind'], detail: string, process?: { name: string; pid?: number }, place: TimelinePlace = {}): TimelineEvent {
    const event: TimelineEvent = {
      at: utc(this.clock.now()),
      kind,
      detail,
      ...(process ? { process: process.name } : {}),
      ...(process?.pid === undefined ? {} : { pid: process.pid }),
      ...Object.fromEntries(Object.entries(place).filter(([, value]) => value !== undefined)),
    };
    this.events.push(event);
    return event;
  }
}
