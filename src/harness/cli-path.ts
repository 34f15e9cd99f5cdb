import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The compiled CLI every child runs: plain JS from dist/, no TypeScript loader,
 * since a drill pays a process start for every restart. The same relative path
 * works from src/harness (tests) and dist/harness (the built CLI). The bundle
 * of the children's entry (scripts/bundle-children.mjs), started by the child
 * loader from its code cache (src/cli/child-loader.cts), starts fastest; the
 * unbundled entry does the same where the bundle was not built, or a dist/
 * from before the loader has no loader.
 */
const BUNDLE = fileURLToPath(new URL('../../dist/bundle/child-main.cjs', import.meta.url));
const CHILD_LOADER = fileURLToPath(new URL('../../dist/cli/child-loader.cjs', import.meta.url));
const UNBUNDLED = fileURLToPath(new URL('../../dist/cli/child-main.js', import.meta.url));
export const CLI_PATH = existsSync(BUNDLE) && existsSync(CHILD_LOADER) ? CHILD_LOADER : UNBUNDLED;
