import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The compiled CLI every child runs: plain JS from dist/, no TypeScript loader,
 * since a drill pays a process start for every restart. The same relative path
 * works from src/harness (tests) and dist/harness (the built CLI). The bundle
 * of the children's entry (scripts/bundle-children.mjs) starts fastest; the
 * unbundled entry does the same where the bundle was not built.
 */
const BUNDLED = fileURLToPath(new URL('../../dist/bundle/child-main.cjs', import.meta.url));
const UNBUNDLED = fileURLToPath(new URL('../../dist/cli/child-main.js', import.meta.url));
export const CLI_PATH = existsSync(BUNDLED) ? BUNDLED : UNBUNDLED;
