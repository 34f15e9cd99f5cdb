import { statfsSync } from 'node:fs';

/*
 * A drill's processes write their logs, their starved spans and the world's
 * ledger into the run directory. On a full disk those writes fail, processes
 * crash and jobs end wrong for the machine's reason, not the queue's: a drill
 * that ends with its disk (all but) full is an error naming it, not a verdict.
 */

/** Below this many free bytes the disk counts as full: less than one scenario's logs. */
const FULL_BELOW_BYTES = 256 * 1024;

/** Why the disk under `dir` counts as full, or null when it has room (or cannot be asked). */
export function diskFull(dir: string): string | null {
  let free: number;
  try {
    const stats = statfsSync(dir);
    free = stats.bavail * stats.bsize;
  } catch {
    return null;
  }
  if (free >= FULL_BELOW_BYTES) return null;
  return `the disk under ${dir} is full (${free} bytes free): the drill's processes could not write their logs and files, so nothing of the queue is judged`;
}
