/*
 * SQLite in WAL mode drops a connection's whole page cache at the start of a
 * transaction whenever another connection wrote since its last one: with
 * several processes writing one queue file, that is nearly every transaction.
 * glibc's malloc gives freed memory at the top of the heap back to the kernel
 * as soon as more than 128 KB of it is free (brk), so each transaction's
 * dropped cache was returned, then asked for and faulted in again page by
 * page for the next. Measured on this 2-core machine (4 processes claiming and
 * completing 3,000 jobs on one reference queue file): 600 jobs/s at 1.3 ms of
 * CPU a job, and 2,400 jobs/s at 0.2 ms with the threshold raised; one process
 * alone, 4,400-4,800 either way. The drill's own processes, which all open
 * SQLite files (a queue's, the world's ledger), keep up to 64 MB of freed heap
 * instead. A user's own queue process does not: how its memory behaves is its
 * own. A GLIBC_TUNABLES already set is the person's, and left as it is;
 * anything but glibc ignores the variable.
 */

/** The variable glibc reads its malloc tunables from, at a process's start. */
const TUNABLES_ENV = 'GLIBC_TUNABLES';

/** Freed heap kept, not returned to the kernel, up to this many bytes. */
const TRIM_THRESHOLD_BYTES = 64 * 1024 * 1024;

/** What a child's environment is given so that its malloc keeps freed heap (nothing when GLIBC_TUNABLES is set already). */
export function keepFreedHeap(parent: NodeJS.ProcessEnv = process.env): Readonly<Record<string, string>> {
  if (parent[TUNABLES_ENV] !== undefined) return {};
  return { [TUNABLES_ENV]: `glibc.malloc.trim_threshold=${TRIM_THRESHOLD_BYTES}` };
}
