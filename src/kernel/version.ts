import { readFileSync } from 'node:fs';

/** Read once: every queue of the registry names it. */
let version: string | undefined;

/** queue-drill's own version, from package.json (the same relative path from src/ and dist/). */
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
