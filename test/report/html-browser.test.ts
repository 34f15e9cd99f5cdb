import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { renderHtml } from '../../src/report/html/render-html.js';
import { checkReport, type DrillReport } from '../../src/report/schema.js';
import { summarize } from '../../src/report/verdict.js';
import { ARTIFACTS, CHROMIUM, CHROMIUM_FLAGS, chromiumMissing } from '../helpers/chromium.js';
import { tempRunDir } from '../helpers/run-dir.js';
import { inconclusiveScenario } from './fixture.js';

/*
 * report.html in a real browser (Debian's chromium, driven by playwright-core;
 * never a downloaded one), from a real drill with a failing scenario of each
 * kind: a broken invariant (zombie-worker and crash-after-claim on
 * sketch-literal), an expectation missed with every invariant held, a fault
 * that can never fire (vacuous), and a run the machine starved (inconclusive).
 * It loads with no console error; the summary gives each a reason, failures
 * first; what broke first leads to the evidence; each job's history is there
 * as text, linked both ways to its marks; no two labels of a timeline overlap
 * (measured, not estimated); the logs are links to files that exist; it fits
 * a phone's width and the keyboard reaches the marks. Screenshots are kept in
 * test-artifacts/. Where no chromium is installed the test is skipped with
 * one line saying so, unless QD_REQUIRE_BROWSER=1 (.ci/run sets it, and
 * installs chromium).
 */

/**
 * The drill, in one file so one `run` drives it all (each scenario on its own queue; they run side by side). The first
 * two are scenarios.yaml's, on sketch-literal, which fails them: crash-after-claim's job is never taken back, zombie-worker's
 * stale write passes. expects-review expects review of a job nothing fails (the reference queue gets it done, every
 * invariant holding); never-fires arms a crash at a third attempt its job never reaches.
 */
const DRILL = `version: 1
defaults: { queue: reference, lease_ms: 400, skew_margin_ms: 50, call_timeout_ms: 300, no_progress_ms: 4000, timeout_ms: 20000 }
scenarios:
  - name: crash-after-claim
    description: The worker holding a job is SIGKILLed right after the claim; the queue alone, as in the queue sketch.
    queue: sketch-literal
    coordinator: false
    jobs: [{ plan: write-file, count: 3, expect: done }]
    faults: [{ at: after_claim, action: crash, first: 1 }]
  - name: zombie-worker
    description: The worker is SIGSTOPped past its lease after the write; another takes over and finishes; the zombie wakes.
    queue: sketch-literal
    restart: false
    jobs: [{ plan: write-then-email, expect: done }]
    faults: [{ at: after_write, action: pause, ms: 2400, first: 1 }]
  - name: expects-review
    description: The job is expected in review, but nothing fails it, so it ends done.
    jobs: [{ plan: write-file, expect: review }]
  - name: never-fires
    description: A crash armed at a third attempt that the job never reaches.
    jobs: [{ plan: write-file, expect: done }]
    faults: [{ at: after_claim, action: crash, where: { attempt: 3 }, first: 1 }]
`;

const missing = chromiumMissing('report.html');

/**
 * The real drill's report, with an inconclusive scenario added: a starved run cannot be had on demand (it needs a machine
 * starved at the right moment), so it is the report fixture's (test/report/fixture.ts), appended as a drill would have
 * listed it, the summary counted again, and the page rendered again from it by the renderer the drill uses.
 */
function withStarvedRun(report: DrillReport): DrillReport {
  const scenarios = [...report.scenarios, inconclusiveScenario()];
  const joined = { ...report, scenarios, summary: summarize(scenarios, 0) };
  const checked = checkReport(joined);
  if (!checked.ok) throw new Error(`the report with a starved run added does not validate: ${JSON.stringify(checked.issues)}`);
  return checked.report;
}

describe.skipIf(missing)('report.html in a real browser', () => {
  // Made when the tests run, not when the file loads: a skipped suite (no chromium) leaves no folder behind.
  let run: ReturnType<typeof tempRunDir>;
  let browser: Browser;
  let page: string;
  let report: DrillReport;

  beforeAll(async () => {
    run = tempRunDir('html-browser');
    const file = join(run.dir, 'drill.yaml');
    writeFileSync(file, DRILL);
    // A run the machine starves anyway is run again at twice the scale: the kinds above must come out as they are meant to.
    const drill = await execa(process.execPath, [CLI_PATH, 'run', file, '--out', join(run.dir, 'out'), '--retry-inconclusive', '1'], {
      reject: false,
      env: { CI: 'true' },
    });
    const dir = join(run.dir, 'out', 'latest');
    if (!existsSync(join(dir, 'report.json'))) throw new Error(`the drill wrote no report:\n${drill.stderr}`);
    report = withStarvedRun(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as DrillReport);
    writeFileSync(join(dir, 'report.html'), renderHtml(report));
    page = `file://${join(dir, 'report.html')}`;
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    run?.remove();
  });

  /** A tab on the page, collecting console errors. */
  async function open(viewport = { width: 1280, height: 900 }): Promise<{ tab: Page; errors: string[] }> {
    const tab = await browser.newPage({ viewport });
    const errors: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    tab.on('pageerror', (error) => errors.push(String(error)));
    await tab.goto(page);
    return { tab, errors };
  }

  it('has the drill it should: a failing scenario of each kind', () => {
    expect(Object.fromEntries(report.scenarios.map((s) => [s.name, s.verdict]))).toEqual({
      'crash-after-claim': 'fail',
      'zombie-worker': 'fail',
      'expects-review': 'fail',
      'never-fires': 'vacuous',
      slow_machine: 'inconclusive',
    });
    const expectation = report.scenarios.find((s) => s.name === 'expects-review')!;
    expect(expectation.invariants.filter((v) => v.status === 'broken')).toEqual([]);
  });

  it('gives every scenario a reason in the summary, failures first, and says what broke first', { timeout: 60_000 }, async () => {
    const { tab, errors } = await open();
    expect(await tab.title()).toBe('queue-drill: 0/5 passed, 1 inconclusive');
    // Passed as text: the test is compiled without the DOM's types, the page runs it.
    const rows = await tab.evaluate<Array<{ name: string; verdict: string; reason: string }>>(
      `[...document.querySelectorAll('table.summary tbody tr')].map((tr) => ({
        name: tr.cells[0].innerText.trim(), verdict: tr.className.replace('v-', ''), reason: tr.cells[2].innerText.trim() }))`,
    );
    expect(rows.map((row) => row.verdict)).toEqual(['fail', 'fail', 'fail', 'inconclusive', 'vacuous']);
    const reasons = Object.fromEntries(rows.map((row) => [row.name, row.reason]));
    expect(reasons['zombie-worker']).toMatch(/^broke single-holder: \S/);
    expect(reasons['crash-after-claim']).toMatch(/^broke .*no-lost-job/);
    expect(reasons['expects-review']).toMatch(/expected review.*done/);
    expect(reasons['never-fires']).toMatch(/crash at after_claim .* never fired/);
    expect(reasons.slow_machine).toMatch(/^the machine starved it: \S/);
    // What broke first: the same order, each with its reason; a failure's first sign leads to its highlighted mark.
    const block = tab.locator('section.broke-first');
    expect(await block.locator('li').count()).toBe(5);
    for (const reason of await block.locator('li .reason').allInnerTexts()) expect(reason.trim()).not.toBe('');
    const sign = block.locator('li', { hasText: 'zombie-worker' }).locator('a.to-mark');
    const target = (await sign.getAttribute('href'))!;
    await sign.click();
    expect(new URL(tab.url()).hash).toBe(target);
    expect(await tab.locator(`${target}.mark.hl`).count(), `${target} is highlighted`).toBe(1);
    await block.screenshot({ path: join(ARTIFACTS, 'report-broke-first.png') });
    expect(errors).toEqual([]);
    await tab.close();
  });

  it('loads with no console error, the failing evidence on the timeline and highlighted, its links leading to the marks', {
    timeout: 60_000,
  }, async () => {
    const { tab, errors } = await open();
    const zombie = tab.locator('section.scenario', { hasText: 'zombie-worker' });
    await expect.poll(() => zombie.locator('svg.timeline .mark.hl').count()).toBeGreaterThan(0);
    const link = zombie.locator('a.to-mark').first();
    const target = (await link.getAttribute('href'))!;
    expect(await zombie.locator(`${target}.hl`).count(), `${target} is highlighted`).toBe(1);
    await link.click();
    expect(new URL(tab.url()).hash).toBe(target);
    // The stuck lease of crash-after-claim is where its broken invariants point.
    const crash = tab.locator('section.scenario', { hasText: 'crash-after-claim' });
    expect(await crash.locator('.mark.k-lease.hl').count()).toBeGreaterThan(0);
    // The axis counts from the producers' release, the start-up folded into a band of its own.
    expect(await zombie.locator('svg.timeline text.band-label').textContent()).toMatch(/^start-up \d+\.\d s$/);
    await zombie.screenshot({ path: join(ARTIFACTS, 'report-timeline.png') });
    expect(errors).toEqual([]);
    await tab.close();
  });

  it("prints each job's history as text, linked both ways to the marks", { timeout: 60_000 }, async () => {
    const { tab } = await open();
    const zombie = tab.locator('section.scenario', { hasText: 'zombie-worker' });
    const job = report.scenarios.find((s) => s.name === 'zombie-worker')!.jobs[0]!;
    const lines = zombie.locator('details.lives li');
    expect(await lines.count()).toBe(job.events.length);
    expect(await zombie.locator('details.lives').textContent()).toMatch(/state +pending +-> running/);
    // A line leads to its mark, and the mark back to the line.
    const line = lines.first();
    const lineId = (await line.getAttribute('id'))!;
    const mark = (await line.locator('a.to-event').getAttribute('href'))!;
    await line.locator('a.to-event').click();
    expect(new URL(tab.url()).hash).toBe(mark);
    expect(await tab.locator(`${mark}.mark`).getAttribute('href')).toBe(`#${lineId}`);
    // A mark is a link: activated, it leads to its line (dispatched, as a mark may lie under another).
    await tab.locator(`${mark}.mark`).dispatchEvent('click');
    expect(new URL(tab.url()).hash).toBe(`#${lineId}`);
    expect(await line.isVisible()).toBe(true);
    await tab.close();
  });

  it('lays out every timeline with no two labels overlapping, measured in the browser', { timeout: 60_000 }, async () => {
    const { tab } = await open();
    // Every box open, so every timeline is laid out.
    await tab.evaluate("for (const box of document.querySelectorAll('details')) box.open = true");
    const timelines = await tab.evaluate<Array<{ label: string; texts: number; overlaps: string[] }>>(`
      [...document.querySelectorAll('svg.timeline')].map((svg) => {
        const boxes = [...svg.querySelectorAll('text')].map((text) => ({ text: text.textContent, box: text.getBoundingClientRect() }));
        const overlaps = [];
        boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
          if (a.box.left < b.box.right && b.box.left < a.box.right && a.box.top < b.box.bottom && b.box.top < a.box.bottom)
            overlaps.push(a.text + ' / ' + b.text);
        }));
        return { label: svg.getAttribute('aria-label'), texts: boxes.filter((b) => b.box.width > 0).length, overlaps };
      })`);
    expect(timelines).toHaveLength(5);
    for (const timeline of timelines) {
      expect(timeline.texts, timeline.label).toBeGreaterThan(3);
      expect(timeline.overlaps, timeline.label).toEqual([]);
    }
    await tab.close();
  });

  it('links each log to its file beside report.html', { timeout: 60_000 }, async () => {
    const { tab } = await open();
    const zombie = tab.locator('section.scenario', { hasText: 'zombie-worker' });
    const links = zombie.locator('a.log');
    const hrefs = await Promise.all(Array.from({ length: await links.count() }, (_, n) => links.nth(n).getAttribute('href')));
    expect(hrefs.length).toBeGreaterThan(2);
    const dir = dirname(new URL(page).pathname);
    for (const href of hrefs) expect(existsSync(join(dir, decodeURIComponent(href!))), href!).toBe(true);
    // The fault that fired names its process's log, a link too.
    expect(await zombie.locator('li.fired a.log').count()).toBe(1);
    await tab.close();
  });

  it('fits a phone: nothing wider than the screen but the timeline, which scrolls', { timeout: 60_000 }, async () => {
    const { tab } = await open({ width: 390, height: 844 });
    const overflow = await tab.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(1);
    await tab.screenshot({ path: join(ARTIFACTS, 'report-phone.png') });
    await tab.close();
  });

  it('lets the keyboard reach the copy buttons and the marks', { timeout: 60_000 }, async () => {
    const { tab } = await open();
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
