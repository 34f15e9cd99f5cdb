import { answerTimeoutAt } from './session.js';

/** What --time-scale auto measured: calibrate()'s Calibration (src/harness/calibrate.ts), which this layer may not import. */
export interface MachineMeasure {
  /** The slower of two processes started at once: spawn to first line (ms). */
  startupMs: number;
  /** How late a 10 ms timer fired (ms). */
  timerLatenessMs: number;
  /** The scale the measure calls for. */
  scale: number;
}

/** The check's time scale: the one given, or (auto) the one this machine needs now, with what it measured, and the wait it makes. */
export interface CheckTimeScale {
  scale: number;
  /** With auto: what was measured; null when a scale was given. */
  calibration: MachineMeasure | null;
  /** How long every answer and delivery is waited for at this scale. */
  answerTimeoutMs: number;
}

/**
 * --time-scale for protocol-check: a given scale as it is, or auto, measured
 * once by `measure` (the CLI passes calibrate(): a process start and a timer's
 * lateness, as the drill measures) before the first step. On a loaded machine
 * a child's hello alone can take seconds, and a check that waits as on a quiet
 * one fails a sound child with no_answer.
 */
export async function checkTimeScale(given: number | 'auto', measure: () => Promise<MachineMeasure>): Promise<CheckTimeScale> {
  if (given !== 'auto') return { scale: given, calibration: null, answerTimeoutMs: answerTimeoutAt(given) };
  const calibration = await measure();
  return { scale: calibration.scale, calibration, answerTimeoutMs: answerTimeoutAt(calibration.scale) };
}
