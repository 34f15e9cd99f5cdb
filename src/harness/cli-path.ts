import { fileURLToPath } from 'node:url';

/**
 * The compiled CLI every child runs: plain JS from dist/, no TypeScript loader,
 * since a drill pays a process start for every restart. The same relative path
 * works from src/harness (tests) and dist/harness (the built CLI).
 */
export const CLI_PATH = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
