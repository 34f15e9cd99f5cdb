import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCompare } from '../../src/compare/write-compare.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS, chromiumMissing } from '../helpers/chromium.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { BULL_ID, DEDUPE_KEY, fiveQueueReport, PGBOSS_ID } from './five-queues.js';

/*
 * compare.html in a real browser (Debian's chromium, driven by playwright-core;
 * never a downloaded one), at a laptop's 1,280 × 900 with five queue columns
 * whose cells hold BullMQ's 90-character job keys, pg-boss's UUIDs, the
 * judge's long starvation lines and long scenario names: the page must not
 * scroll sideways, nor the matrix inside its box; every cell must lie within
 * the window and every text of a cell within that cell; the long ids are shown
 * shortened, each whole in its title; and nothing is logged as an error. A
 * screenshot is kept in test-artifacts/. Where no chromium is installed the
 * test is skipped with one line saying so, unless QD_REQUIRE_BROWSER=1.
 */

const WIDTH = 1280;

const missing = chromiumMissing('compare.html');

/**
 * Run in the page (as text: the test is compiled without the DOM's types):
 * one line for each box that sticks out. A cell must lie within the window;
 * its content must not be wider than it (scrollWidth counts what overflows);
 * and every piece of its text, each line box of an inline element too, must
 * lie within its edges. A half pixel of slack for sub-pixel layout.
 */
const OVERFLOWS = `(() => {
  const out = [];
  const width = window.innerWidth;
  const name = (el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '');
  const where = (cell) => (cell.closest('tr')?.querySelector('th[scope=row]')?.textContent ?? 'head') + ' / column ' + cell.cellIndex;
  for (const box of document.querySelectorAll('.wide'))
    if (box.scrollWidth > box.clientWidth) out.push('a table scrolls sideways: ' + box.scrollWidth + ' > ' + box.clientWidth);
  for (const cell of document.querySelectorAll('table.matrix td, table.matrix th')) {
    const r = cell.getBoundingClientRect();
    if (r.left < -0.5 || r.right > width + 0.5) out.push(where(cell) + ': the cell is outside the window, ' + r.left + ' to ' + r.right);
    if (cell.scrollWidth > cell.clientWidth) out.push(where(cell) + ': its content is wider than it, ' + cell.scrollWidth + ' > ' + cell.clientWidth);
    for (const el of cell.querySelectorAll('*'))
      for (const line of el.getClientRects())
        if (line.left < r.left - 0.5 || line.right > r.right + 0.5)
          out.push(where(cell) + ': ' + name(el) + ' "' + (el.textContent ?? '').slice(0, 40) + '" sticks out, ' + line.right + ' > ' + r.right);
  }
  for (const line of document.querySelectorAll('td.cell .line'))
    if (line.scrollWidth > line.clientWidth && line.clientWidth > 0) out.push('an evidence line overflows: ' + line.textContent.slice(0, 40));
  return out;
})()`;

describe.skipIf(missing)('compare.html in a real browser', () => {
  // Made when the tests run, not when the file loads: a skipped suite (no chromium) leaves no folder behind.
  let temp: ReturnType<typeof tempRunDir>;
  let browser: Browser;
  let page: string;

  beforeAll(async () => {
    temp = tempRunDir('compare-browser');
    const written = writeCompare(temp.dir, fiveQueueReport(temp.dir));
    page = `file://${written.html}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    temp?.remove();
  });

  it('fits 1,280 px with five queue columns: no sideways scroll, every cell in the window and every text in its cell, no console error', {
    timeout: 60_000,
  }, async () => {
    const tab = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
    const errors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    tab.on('pageerror', (error) => errors.push(String(error)));
    await tab.goto(page);
    expect(await tab.locator('table.matrix thead th[scope=col]').count()).toBe(5);
    expect(await tab.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTH);
    expect(await tab.evaluate<string[]>(OVERFLOWS)).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await tab.screenshot({ path: join(ARTIFACTS, 'compare-1280.png'), fullPage: true });
    expect(errors).toEqual([]);
    await tab.close();
  });

  it('shows a long id shortened, its head and tail, with the whole id in its title', { timeout: 60_000 }, async () => {
    const tab = await browser.newPage({ viewport: { width: WIDTH, height: 900 } });
    await tab.goto(page);
    const titles = await tab.evaluate<string[]>("[...document.querySelectorAll('td.cell abbr.id')].map((id) => id.title)");
    expect(titles).toContain(BULL_ID);
    expect(titles).toContain(PGBOSS_ID);
    expect(titles).toContain(DEDUPE_KEY);
    const bull = tab.locator(`td.cell abbr.id[title="${BULL_ID}"]`).first();
    expect(await bull.textContent()).toBe(`${BULL_ID.slice(0, 10)}…${BULL_ID.slice(-8)}`);
    // The whole key is nowhere on the page as text, only in titles: shown whole, it would wrap over several lines of its cell.
    expect(await tab.evaluate<boolean>(`document.body.innerText.includes(${JSON.stringify(BULL_ID)})`)).toBe(false);
    await tab.close();
  });
});
