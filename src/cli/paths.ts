import { existsSync, statSync } from 'node:fs';
import { UsageError } from '../kernel/errors.js';
import { isOnThisMachine } from '../kernel/this-machine.js';

/** The path, if a file is there; a clear bad-input error if not (opening would create an empty store). */
export function existingFile(path: string, option: string): string {
  if (!existsSync(path)) throw new UsageError(`${option} ${path}: no such file`);
  if (!statSync(path).isFile()) throw new UsageError(`${option} ${path}: not a file (a directory?)`);
  return path;
}

/** A base URL that must point at this machine: drills talk to 127.0.0.1 only. */
export function localUrl(url: string, option: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${option} ${url}: not a URL (expected http://127.0.0.1:PORT)`);
  }
  if (parsed.protocol !== 'http:' || !isOnThisMachine(url)) {
    throw new UsageError(`${option} ${url}: only http on 127.0.0.1 is allowed`);
  }
  return parsed.origin;
}
