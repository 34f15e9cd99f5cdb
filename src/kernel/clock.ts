// Time is passed in, never read from a global, so tests and drills can drive it
// and a worker can be given a skewed clock on purpose.

/** A source of the current time in milliseconds since the Unix epoch (UTC). */
export interface Clock {
  now(): number;
}

/** The machine's clock, optionally shifted by a fixed skew (a drill's clock-skew fault). */
export function systemClock(skewMs = 0): Clock {
  return { now: () => Date.now() + skewMs };
}

/** A clock that moves only when told to: for tests and model checks. */
export class ManualClock implements Clock {
  constructor(private ms: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    if (ms < 0) throw new RangeError('a clock only moves forward');
    this.ms += ms;
  }
}

/**
 * The one time representation of the store: ISO 8601 UTC with milliseconds,
 * fixed width ("2026-08-25T10:00:00.000Z"), so string order is time order.
 * The queue sketch mixed "2026-08-25 10:00:00" with "...T10:00:00+00:00", whose string
 * order is not time order.
 */
export function utc(ms: number): string {
  return new Date(ms).toISOString();
}

/** Parse a stored UTC timestamp back to milliseconds; refuses anything but the one format. */
export function parseUtc(text: string): number {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text)) {
    throw new RangeError(`not a stored UTC timestamp: ${JSON.stringify(text)}`);
  }
  return Date.parse(text);
}
