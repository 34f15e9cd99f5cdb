const cell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Blocks this thread for `ms` milliseconds, as synchronous work between a read
 * and a write would: no other statement of this process runs meanwhile, while
 * other processes go on. A wait, not a spin, so it costs no CPU on a small
 * machine where the drill's processes share two cores.
 */
export function blockThisThread(ms: number): void {
  if (ms > 0) Atomics.wait(cell, 0, 0, ms);
}
