import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { procStatFields } from '../../kernel/proc-stat.js';

/*
 * Who a process is, beyond its pid: a pid alone names a different process
 * once the kernel hands it out again (after the owner died, or after a
 * reboot), so an owner is its host, the host's boot, its pid and the time the
 * kernel started it. Read from /proc (Linux); where there is none, the start
 * time and boot are unknown and a live pid counts as the owner: when in
 * doubt, the drill is still running.
 */

/** The machine this process runs on, as an owner mark names it. */
export interface HostIdentity {
  host: string;
  /** The kernel's id of this boot (/proc/sys/kernel/random/boot_id); null where there is none. */
  bootId: string | null;
}

/** What this host knows of a pid now. */
export interface ProcessLook {
  alive: boolean;
  /** Its start time (clock ticks since boot), when alive and /proc says; null otherwise. */
  start: string | null;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** This host's name and boot. */
export function hostHere(): HostIdentity {
  return { host: hostname(), bootId: readOrNull('/proc/sys/kernel/random/boot_id')?.trim() || null };
}

/** When the kernel started `pid` (field 22 of /proc/PID/stat, clock ticks since boot), or null where /proc does not say. */
export function processStart(pid: number): string | null {
  return procStatFields(pid)?.[19] ?? null;
}

/** Whether `pid` runs on this host (a zombie, dead but not yet reaped by its parent, does not), and its start time. */
export function lookAtProcess(pid: number): ProcessLook {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return { alive: false, start: null };
  }
  const fields = procStatFields(pid);
  if (fields?.[0] === 'Z') return { alive: false, start: null };
  return { alive: true, start: fields?.[19] ?? null };
}
