import { appendFileSync, existsSync, readFileSync } from 'node:fs';

/*
 * The effect of a demo action (the `demo` command and plain `sleep` jobs, which
 * call no world service): an append-only file with one line per applied effect. A write of one short line
 * with O_APPEND lands whole even with many writers, and the file outlives any
 * SIGKILL, so it is evidence the queue cannot edit: how many times did the
 * effect for this key happen?
 */

export interface AppliedEffect {
  key: string;
  jobId: string;
  worker: string;
  attempt: number;
  pid: number;
  at: string;
}

/** The effect log that goes with a store file unless one is named. */
export function effectLogFor(store: string): string {
  return `${store}.effects.jsonl`;
}

/** Appends one applied effect. */
export function appendEffect(file: string, effect: AppliedEffect): void {
  appendFileSync(file, `${JSON.stringify(effect)}\n`);
}

/**
 * Every applied effect in the file, in the order they were applied. Only whole
 * lines count: a read racing another process's append can end in the middle of
 * its line, and that effect is applied only once its line (and newline) is written.
 */
export function readEffects(file: string): AppliedEffect[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  // The last piece is '' after a whole last line, or an append still being written.
  lines.pop();
  return lines.filter((line) => line.length > 0).map((line) => JSON.parse(line) as AppliedEffect);
}

/** The effects applied for one key: reconciliation asks this before applying again. */
export function loggedEffectsFor(file: string, key: string): AppliedEffect[] {
  return readEffects(file).filter((effect) => effect.key === key);
}
