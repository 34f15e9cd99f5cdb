import { HarnessError } from './errors.js';

/*
 * Shutting down what a process opened, as a stack (graphile-worker's
 * withReleasers): the last thing opened is released first, because it may
 * still use what was opened before it (a server still writes to the ledger it
 * was given). Every release is attempted even when one fails, so one stuck
 * socket cannot leak a database handle; the first failure is rethrown, since
 * it is usually the cause of the ones after it.
 */

/** Releases one resource; may be async. */
export type Release = () => void | Promise<void>;

/** A stack of releases, run last-added-first, once. */
export class Releasers {
  private readonly stack: Array<{ name: string; release: Release }> = [];
  private released: Promise<void> | null = null;

  /** @param onError sees every failed release (the first is also rethrown), so the later ones are not lost silently. */
  constructor(private readonly onError?: (name: string, error: unknown) => void) {}

  /** Registers the release of something just opened; it will run before everything added earlier. */
  add(name: string, release: Release): void {
    // Too late to be released by this stack: refusing beats a silent leak.
    if (this.released) throw new HarnessError('QD_ALREADY_RELEASED', `cannot add ${name}: these resources are already released`);
    this.stack.push({ name, release });
  }

  /**
   * Runs every release, last added first, each after the one before settled;
   * rejects with the first error once all were attempted. A second call does
   * nothing more and settles as the first did.
   */
  releaseAll(): Promise<void> {
    this.released ??= this.runAll();
    return this.released;
  }

  private async runAll(): Promise<void> {
    let first: { error: unknown } | null = null;
    for (const { name, release } of [...this.stack].reverse()) {
      try {
        await release();
      } catch (error) {
        this.onError?.(name, error);
        first ??= { error };
      }
    }
    if (first) throw first.error;
  }
}

/**
 * Runs fn with a fresh stack and releases it however fn ends. When fn throws,
 * its error wins over any release error: it is what went wrong first.
 */
export async function withReleasers<T>(fn: (releasers: Releasers) => Promise<T>, onError?: (name: string, error: unknown) => void): Promise<T> {
  const releasers = new Releasers(onError);
  let result: T;
  try {
    result = await fn(releasers);
  } catch (error) {
    await releasers.releaseAll().catch(() => undefined);
    throw error;
  }
  await releasers.releaseAll();
  return result;
}
