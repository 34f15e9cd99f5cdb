import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/PID/stat (Linux) after the command name, which is in
 * parentheses and may hold spaces and parentheses itself: the process state
 * first (field 3), so field N is at index N - 3. Null where there is no such
 * file (the process gone, or no /proc).
 */
export function procStatFields(pid: number | 'self'): string[] | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  return stat
    .slice(stat.lastIndexOf(')') + 2)
    .trim()
    .split(' ');
}
