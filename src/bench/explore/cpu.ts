import { procStatFields } from '../../kernel/proc-stat.js';

/** CPU time used so far, in ms: the bench's own process, and its children that have ended. */
export interface CpuSample {
  harnessMs: number;
  /** Children that have ended and been waited for (a drill's workers, producers, world); null where the OS does not say (off Linux). */
  childrenMs: number | null;
}

/*
 * An explore's schedules run on real processes, the bench's children: most of
 * their CPU is theirs, not the harness's, and process.cpuUsage() sees only the
 * harness. Linux keeps the CPU of children waited for in /proc/self/stat
 * (cutime, cstime: fields 16 and 17, in USER_HZ ticks, 100 a second on every
 * architecture Node runs on: the kernel scales them to it), so both are read,
 * before and after, and the difference taken.
 */

const USER_HZ = 100;

/** cutime + cstime of /proc/self/stat, in ms; null where there is no /proc. */
function childrenCpuMs(): number | null {
  const fields = procStatFields('self');
  if (fields === null) return null;
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? (ticks * 1000) / USER_HZ : null;
}

/** The CPU used so far. */
export function cpuSample(): CpuSample {
  const { user, system } = process.cpuUsage();
  return { harnessMs: (user + system) / 1000, childrenMs: childrenCpuMs() };
}

/** The CPU used between `before` and `after`. */
export function cpuBetween(before: CpuSample, after: CpuSample): CpuSample {
  return {
    harnessMs: Math.max(0, after.harnessMs - before.harnessMs),
    childrenMs: before.childrenMs === null || after.childrenMs === null ? null : Math.max(0, after.childrenMs - before.childrenMs),
  };
}
