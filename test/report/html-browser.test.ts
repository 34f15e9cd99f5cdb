import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * report.html in a real browser (Debian's chromium, driven by playwright-core;
 * never a downloaded one), from a real drill with failing scenarios: it loads
 * with no console error, the failing scenario's evidence is on the timeline
 * and highlighted, its links lead to the marks, it fits a phone's width and
 * the keyboard reaches the marks. A screenshot is kept in test-artifacts/.
 * Where no chromium is installed the test is skipped with one line saying so,
 * unless QD_REQUIRE_BROWSER=1 (.ci/run sets it, and installs chromium).
 */

const CHROMIUM = process.env.QD_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const ARTIFACTS = resolve('test-artifacts');

const missing = !existsSync(CHROMIUM);
if (missing && process.env.QD_REQUIRE_BROWSER === '1')
  throw new Error(`QD_REQUIRE_BROWSER=1, and no chromium at ${CHROMIUM} (apt-get install chromium)`);
if (missing)
  console.warn(`no chromium at ${CHROMIUM}, so skipped: the real-browser test of report.html (apt-get install chromium, or set QD_CHROMIUM)`);

describe.skipIf(missing)('report.html in a real browser', () => {
  // Made when the tests run, not when the file loads: a skipped suite (no chromium) leaves no folder behind.
  let run: ReturnType<typeof tempRunDir>;
  let browser: Browser;
  let page: string;

  beforeAll(async () => {
    run = tempRunDir('html-browser');
    // sketch-literal fails both: crash-after-claim (the job is never taken back) and zombie-worker (a stale write passes).
    await execa(
      process.execPath,
      [CLI_PATH, 'run', 'scenarios.yaml', '--only', 'crash-after-claim,zombie-worker', '--queue', 'sketch-literal', '--out', run.dir],
      { reject: false, env: { CI: 'true' } },
    );
    page = `file://${join(run.dir, 'latest', 'report.html')}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    run?.remove();
  });

  it('loads with no console error, the failing evidence on the timeline and highlighted, its links leading to the marks', {
    timeout: 60_000,
  }, async () => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    tab.on('pageerror', (error) => errors.push(String(error)));
    await tab.goto(page);
    expect(await tab.title()).toBe('queue-drill: 0/2 passed');
    const zombie = tab.locator('section.scenario', { hasText: 'zombie-worker' });
    await expect.poll(() => zombie.locator('svg.timeline g.mark.hl').count()).toBeGreaterThan(0);
    const link = zombie.locator('a.to-mark').first();
    const target = (await link.getAttribute('href'))!;
    expect(await zombie.locator(`g${target}.hl`).count(), `${target} is highlighted`).toBe(1);
    await link.click();
    expect(new URL(tab.url()).hash).toBe(target);
    // The stuck lease of crash-after-claim is where its broken invariants point.
    const crash = tab.locator('section.scenario', { hasText: 'crash-after-claim' });
    expect(await crash.locator('g.mark.k-lease.hl').count()).toBeGreaterThan(0);
    mkdirSync(ARTIFACTS, { recursive: true });
    await zombie.screenshot({ path: join(ARTIFACTS, 'report-timeline.png') });
    expect(errors).toEqual([]);
    await tab.close();
  });

  it('fits a phone: nothing wider than the screen but the timeline, which scrolls', { timeout: 60_000 }, async () => {
    const tab = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await tab.goto(page);
    // Passed as text: the test is compiled without the DOM's types, the page runs it.
    const overflow = await tab.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(1);
    await tab.screenshot({ path: join(ARTIFACTS, 'report-phone.png') });
    await tab.close();
  });

  it('lets the keyboard reach the copy buttons and the marks', { timeout: 60_000 }, async () => {
    const tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await tab.goto(page);
    const reached = new Set<string>();
    for (let n = 0; n < 60; n++) {
      await tab.keyboard.press('Tab');
      reached.add(
        await tab.evaluate<string>(
          "document.activeElement?.classList.contains('mark') ? 'mark' : (document.activeElement?.tagName ?? '').toLowerCase()",
        ),
      );
    }
    expect(reached).toContain('button');
    expect(reached).toContain('mark');
    await tab.close();
  });
});
