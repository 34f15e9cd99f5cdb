import { setTimeout as sleep } from 'node:timers/promises';
import { HarnessError } from '../kernel/errors.js';

/**
 * Waits until `condition` returns a value other than undefined/false, checking
 * every `intervalMs`, and fails with `what` in the message once `timeoutMs` has
 * passed: never a fixed sleep that hopes the world caught up.
 */
export async function waitFor<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs: number; intervalMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) {
      throw new HarnessError('QD_WAIT_TIMEOUT', `timed out after ${options.timeoutMs} ms waiting for ${options.what}`);
    }
    await sleep(options.intervalMs ?? 20);
  }
}
