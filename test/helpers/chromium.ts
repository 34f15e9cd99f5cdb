import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/*
 * Debian's chromium for the real-browser tests, driven by playwright-core
 * (never a downloaded browser: there is no network for one here). Where none is
 * installed a test is skipped with one line saying so, unless
 * QD_REQUIRE_BROWSER=1 (.ci/run sets it, and installs chromium).
 */

export const CHROMIUM = process.env.QD_CHROMIUM ?? '/usr/bin/chromium';

/** Headless, and nothing the browser would fetch or update on its own. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the tests keep their screenshots. */
export const ARTIFACTS = resolve('test-artifacts');

/** Whether the browser tests of `what` must be skipped: true when no chromium is installed (said in one line), unless it is required. */
export function chromiumMissing(what: string): boolean {
  const missing = !existsSync(CHROMIUM);
  if (missing && process.env.QD_REQUIRE_BROWSER === '1')
    throw new Error(`QD_REQUIRE_BROWSER=1, and no chromium at ${CHROMIUM} (apt-get install chromium)`);
  if (missing)
    console.warn(`no chromium at ${CHROMIUM}, so skipped: the real-browser test of ${what} (apt-get install chromium, or set QD_CHROMIUM)`);
  return missing;
}
