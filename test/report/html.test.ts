import { describe, expect, it } from 'vitest';
import { evidenceTargets } from '../../src/report/html/evidence-links.js';
import { layoutScenario } from '../../src/report/html/lanes.js';
import { renderHtml } from '../../src/report/html/render-html.js';
import type { DrillReport } from '../../src/report/schema.js';
import { drillReport, INTERRUPTED_LINE, interruptedReport } from './fixture.js';

/*
 * report.html from the fixture report (four scenarios, one of each verdict):
 * one page that needs nothing else, every text escaped, and a timeline whose
 * evidence marks are linked and highlighted. The real-browser test
 * (test/report/html-browser.test.ts) opens one made by a real drill.
 */

/** The fixture, with the failing scenario's duplicate named as an invariant names it. */
function reportWithDuplicate(): DrillReport {
  const report = drillReport();
  const failing = report.scenarios[1]!;
  const verdict = failing.invariants.find((v) => v.id === 'no-duplicate-effect')!;
  verdict.evidence = [...verdict.evidence, 'key ab12cd34ef56ab78:charge (charge, not idempotent, applied 2 times): ledger #1 …; ledger #2 …'];
  return report;
}

describe('report.html', () => {
  it('is one page that needs nothing else: no stylesheet, script, font or image from anywhere', () => {
    const html = renderHtml(drillReport());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<link\b|<script[^>]+src=|<img\b|@import|url\(\s*['"]?(?:https?:)?\/\//i);
    expect(html).toContain('<style>');
    expect(html.length).toBeLessThan(200_000);
  });

  it('escapes every text a process wrote: no markup, no control characters, no lone surrogates get through', () => {
    const html = renderHtml(drillReport());
    expect(html).not.toContain('<both>');
    expect(html).toContain('&lt;both&gt;');
    expect(html).not.toMatch(/[\u0000\u001b]/);
    expect(html).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('gives a summary: the counts, the seed, the command to copy, and a row per scenario linking to it', () => {
    const report = drillReport();
    const html = renderHtml(report);
    expect(html).toContain('queue-drill: 1/4 passed, 1 failed, 1 vacuous, 1 errors');
    expect(html).toContain(`seed <code>${report.seed}</code>`);
    for (const [i, scenario] of report.scenarios.entries()) {
      expect(html).toContain(`<a href="#scenario-${i + 1}">${scenario.name}</a>`);
      expect(html).toMatch(new RegExp(`data-copy="[^"]*--only ${scenario.name}`));
    }
  });

  it('lays each incarnation of a process out in a lane of its own, and effects in the world’s', () => {
    const layout = layoutScenario(drillReport().scenarios[0]!, 0);
    expect(layout.lanes.map((lane) => lane.id)).toEqual(['w1#1', 'w1#2', 'world']);
    const leases = layout.marks.filter((mark) => mark.kind === 'lease');
    expect(leases.map((lease) => [lease.lane, lease.label])).toEqual([
      ['w1#1', 'job 1 e1'],
      ['w1#2', 'job 1 e2'],
    ]);
    expect(layout.marks.find((mark) => mark.kind === 'kill')?.lane).toBe('w1#1');
    expect(layout.marks.find((mark) => mark.kind === 'effect')?.lane).toBe('world');
    expect(layout.marks.find((mark) => mark.kind === 'release')?.title).toMatch(/running→retry by coordinator/);
  });

  it('links an evidence line to the marks it names, and highlights them on the timeline', () => {
    const report = reportWithDuplicate();
    const failing = report.scenarios[1]!;
    expect(evidenceTargets('key ab12cd34ef56ab78:charge (charge, not idempotent, applied 2 times)', failing, 1)).toEqual(['s1-j1-f1', 's1-j1-f2']);
    expect(evidenceTargets('job 1: event #2 pending→running by worker w1', failing, 1)).toEqual(['s1-j1-e2']);
    expect(evidenceTargets('nothing drawable here', failing, 1)).toEqual([]);
    const html = renderHtml(report);
    expect(html).toContain('<a class="to-mark" href="#s1-j1-f1">');
    expect(html).toMatch(/<g id="s1-j1-f1" class="mark k-effect hl"/);
    expect(html).toMatch(/<g id="s1-j1-f2" class="mark k-effect hl"/);
    // A mark nobody names is not highlighted.
    expect(html).toMatch(/<g id="s1-j1-e2" class="mark k-claim"/);
  });

  it('opens the timeline of a scenario that did not pass, and leaves a passing one closed', () => {
    const html = renderHtml(reportWithDuplicate());
    const sections = html.split('<section ').slice(1);
    expect(sections[0]).toMatch(/<details class="timeline-box">/);
    expect(sections[1]).toMatch(/<details class="timeline-box" open>/);
  });

  it('lists each fault with its limits and argument', () => {
    const html = renderHtml(interruptedReport());
    expect(html).toContain('<li>pause-w1: pause at after_write (ms=60000, first 1 hit): 1 fired of 1 hits</li>');
    expect(html).toContain('<li>later: crash at before_complete (every hit, probability 0.5): 0 fired of 0 hits</li>');
  });

  it('names the log of the process a fault fired in, as a run lists its logs (by name alone)', () => {
    const report = drillReport();
    const scenario = report.scenarios.find((s) => s.timeline.some((e) => e.kind === 'fault-fired'))!;
    scenario.artefacts.logs = ['p1.1.log', 'w1.1.log', 'w1.1.log.err'];
    const html = renderHtml(report);
    expect(html).toMatch(/<li class="fired">[^<]*w1#1:[^<]*<code>w1\.1\.log<\/code><\/li>/);
  });

  it('says a drill was interrupted, marks the half-run as such, and lists the runs never started', () => {
    const html = renderHtml(interruptedReport());
    expect(html).toContain('<title>queue-drill: 1/4 passed, interrupted</title>');
    expect(html).toContain('queue-drill: 1/4 passed, 0 failed, 0 vacuous, 1 interrupted, 2 never started, 0 errors');
    expect(html).toContain('<strong>interrupted by SIGINT: 1 scenario run stopped before rest (not judged), 2 never started</strong>');
    expect(html).toMatch(
      /<tr class="v-interrupted"><td><a href="#scenario-2">zombie_worker<\/a><\/td><td><span class="verdict">INTERRUPTED<\/span><\/td><td>-<\/td>/,
    );
    for (const name of ['crash_after_verify', 'world_unreachable']) {
      expect(html).toContain(`<tr class="v-not-started"><td>${name}</td><td><span class="verdict">NEVER STARTED</span></td>`);
    }
    const section = html.split('<section ')[2]!;
    expect(section).toContain(`<li>interrupted, so not judged: ${INTERRUPTED_LINE}</li>`);
    // Its jobs are where they stood, not failures.
    expect(section).toContain('<td>where it stood (not judged)</td>');
    expect(section).not.toContain('not as expected');
  });

  it('is the same page for the same report', () => {
    expect(renderHtml(drillReport())).toBe(renderHtml(drillReport()));
  });
});
