import { readdirSync, readFileSync } from 'node:fs';

/*
 * The process table, read from /proc: what a test checks against when it
 * must know that no process of a drill is left, or that one is stopped.
 */

/** Every live process but this one whose command line mentions `text` (a drill's own run directory). */
export function processesMentioning(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** The fields of /proc/PID/stat after the command name (which may hold spaces), or undefined once it is gone. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The scheduler state of a process (R, S, T for stopped, Z for a zombie, ...), or undefined once it is gone. */
export function procState(pid: number): string | undefined {
  return statFields(pid)?.[0];
}

/** The CPU time process `pid` has used, in clock ticks (utime + stime, 1/100 s here), or undefined once it is gone. */
export function cpuTicks(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields === undefined ? undefined : Number(fields[11]) + Number(fields[12]);
}

/** Whether process `pid` is stopped (SIGSTOP). */
export function isStopped(pid: number): boolean {
  return procState(pid) === 'T';
}

/** The parent of process `pid`, or undefined once it is gone. */
export function parentOf(pid: number): number | undefined {
  const ppid = statFields(pid)?.[1];
  return ppid === undefined ? undefined : Number(ppid);
}

/** Whether `pid` is alive and not a zombie waiting to be reaped. */
export function isRunning(pid: number): boolean {
  const state = procState(pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** The live children of `pid` whose command line mentions `text`. */
export function childrenMentioning(pid: number, text: string): number[] {
  return processesMentioning(text).filter((child) => parentOf(child) === pid);
}

/** One line for a failure's message: pid, state and command line. */
export function describeProcess(pid: number): string {
  let command = '(gone)';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    // Gone meanwhile.
  }
  return `${pid} ${procState(pid) ?? '-'} ${command}`;
}

/** Every live descendant of `pid` (children, their children, ...), read from the parent links in /proc. */
export function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent !== undefined) parents.set(Number(entry), parent);
  }
  const found: number[] = [];
  let frontier = [pid];
  while (frontier.length > 0) {
    const next = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...next);
    frontier = next;
  }
  return found;
}
