import { UsageError } from '../kernel/errors.js';
import type { Settings } from './schema.js';

/*
 * --time-scale K stretches every duration a scenario sets by K: leases, skew
 * margins, call timeouts, polls, the no-progress watchdog, the deadline,
 * retry delays, restarts, clock skews, and the fault actions' durations (a
 * pause, a delay, a held answer). The drill's shape stays the same relative to
 * the lease, so a queue whose lease cannot be as short as the shipped
 * scenarios' (pg-boss counts whole seconds) can run them at K = 3. The
 * harness's own tick is not a duration of the scenario and stays.
 */

/** Whether K is a usable scale: a finite number from 1/10 to 100. */
export function isTimeScale(k: number): boolean {
  return Number.isFinite(k) && k >= 0.1 && k <= 100;
}

/** A --time-scale as typed: `auto`, or a usable scale; anything else is bad input naming the flag. */
export function parseTimeScale(flag: string, text: string | number): number | 'auto' {
  if (String(text).trim() === 'auto') return 'auto';
  const k = typeof text === 'number' ? text : Number(text.trim());
  if (String(text).trim() === '' || !isTimeScale(k)) throw new UsageError(`${flag} must be auto or a number from 0.1 to 100, got ${String(text)}`);
  return k;
}

/** A duration stretched by K, in whole milliseconds. */
export const scaled = (ms: number, k: number): number => Math.round(ms * k);

/** The settings with every duration but the harness's tick stretched by K. */
export function scaleSettings(settings: Settings, k: number): Settings {
  if (k === 1) return settings;
  return {
    ...settings,
    lease_ms: scaled(settings.lease_ms, k),
    skew_margin_ms: scaled(settings.skew_margin_ms, k),
    call_timeout_ms: scaled(settings.call_timeout_ms, k),
    poll_ms: Math.max(1, scaled(settings.poll_ms, k)),
    no_progress_ms: scaled(settings.no_progress_ms, k),
    timeout_ms: scaled(settings.timeout_ms, k),
    retry: { base_ms: scaled(settings.retry.base_ms, k), cap_ms: scaled(settings.retry.cap_ms, k), jitter_ms: scaled(settings.retry.jitter_ms, k) },
    restart: settings.restart === false ? false : { ...settings.restart, after_ms: scaled(settings.restart.after_ms, k) },
  };
}

/** A fault as the scenario gives it, with each of its duration fields (named in `msFields`) stretched by K. */
export function scaleFault<Fault extends object>(fault: Fault, msFields: ReadonlySet<string>, k: number): Fault {
  if (k === 1) return fault;
  const out = { ...fault } as Record<string, unknown>;
  for (const name of msFields) {
    const value = out[name];
    if (typeof value === 'number') out[name] = scaled(value, k);
  }
  return out as Fault;
}
