import { readFileSync } from 'node:fs';

/** queue-drill's own version, from package.json (the same relative path from src/ and dist/). */
export function toolVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
