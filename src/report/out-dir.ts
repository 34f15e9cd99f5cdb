import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../kernel/errors.js';

/*
 * The folder a command writes its runs into (--out), made and checked before
 * anything runs: a folder that cannot be made or written is the user's input,
 * said in one line naming the flag (exit 2), not a raw ENOTDIR after the
 * drill. Made one level at a time rather than with mkdir's `recursive`,
 * which on Node 20 loops for ever at 100% CPU under a path like /proc/x.
 */

function problem(out: string, why: string): UsageError {
  return new UsageError(`--out ${out}: the runs cannot be written there (${why})`);
}

function codeOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Makes `out` where missing and checks it can be written; returns the first folder it made (undefined: it was there). */
export function makeOutDir(out: string): string | undefined {
  const missing: string[] = [];
  let at = resolve(out);
  for (;;) {
    try {
      if (!statSync(at).isDirectory()) throw problem(out, `${at} is not a folder`);
      break;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw problem(out, codeOf(error));
      missing.unshift(at);
      const parent = dirname(at);
      if (parent === at) throw problem(out, codeOf(error));
      at = parent;
    }
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      throw problem(out, codeOf(error));
    }
  }
  try {
    accessSync(resolve(out), constants.W_OK);
  } catch (error) {
    throw problem(out, codeOf(error));
  }
  return missing[0];
}
