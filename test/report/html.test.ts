import { describe, expect, it } from 'vitest';
import { evidenceTargets } from '../../src/report/html/evidence-links.js';
import { placeLabels, textWidth } from '../../src/report/html/label-layout.js';
import { layoutScenario } from '../../src/report/html/lanes.js';
import { logHref } from '../../src/report/html/log-links.js';
import { renderHtml } from '../../src/report/html/render-html.js';
import { axisTime, STARTUP_BAND, timeAxis } from '../../src/report/html/time-axis.js';
import { timelineSvg } from '../../src/report/html/timeline-svg.js';
import { producersReleasedAt } from '../../src/report/producers-release.js';
import type { DrillReport, ScenarioReport } from '../../src/report/schema.js';
import {
  drillReport,
  EARLIER_RUN_DIR,
  INCONCLUSIVE_LINES,
  INTERRUPTED_LINE,
  inconclusiveReport,
  inconclusiveScenario,
  interruptedReport,
  passingReport,
  retriedReport,
  STARVED_SPAN,
} from './fixture.js';

/*
 * report.html from the fixture report (four scenarios, one of each verdict):
 * one page that needs nothing else, every text escaped, and a timeline whose
 * evidence marks are linked and highlighted. The real-browser test
 * (test/report/html-browser.test.ts) opens one made by a real drill.
 */

/** The section of the scenario `n` (1-based, its place in the report, which names its anchor), from its id on: the page lists failures first. */
function section(html: string, n: number): string {
  const found = html.split('<section ').find((part) => part.startsWith(`id="scenario-${n}"`));
  if (found === undefined) throw new Error(`no section scenario-${n}`);
  return found;
}

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

  it("draws a partition as a span in the cut-off process's lane, from its start to its heal, and a lost reply or a reset as a point", () => {
    const scenario = drillReport().scenarios[0]!;
    const at = (ms: number) => new Date(Date.parse(scenario.timeline[0]!.at) + ms).toISOString();
    const w1 = { process: 'w1#2', pid: 7 };
    scenario.timeline.push(
      { at: at(100), kind: 'network', detail: 'partitioned from its servers for 1500 ms at after_verify job 1 attempt 2', ...w1 },
      { at: at(1600), kind: 'network', detail: 'QD_PG_URL: healed, 728 bytes held go through', ...w1 },
      { at: at(1600), kind: 'resume', detail: 'the partition from after_verify job 1 attempt 2 healed', ...w1 },
      {
        at: at(1700),
        kind: 'network',
        detail: 'QD_PG_URL: reply dropped, connection 2: the reply to COMMIT (18 bytes) swallowed, then the connection reset',
        ...w1,
      },
      { at: at(1800), kind: 'network', detail: 'QD_PG_URL: reset, connections 3, 4', ...w1 },
    );
    const marks = layoutScenario(scenario, 0).marks.filter((mark) => mark.kind === 'partition' || mark.kind === 'network');
    expect(marks.map((mark) => [mark.kind, mark.lane, mark.label, mark.end === undefined ? null : mark.end - mark.at])).toEqual([
      ['partition', 'w1#2', 'partitioned', 1500],
      ['network', 'w1#2', 'reply lost', null],
      ['network', 'w1#2', 'reset', null],
    ]);
    expect(marks[0]!.title).toBe('w1#2: the partition from after_verify job 1 attempt 2 healed');
    expect(renderHtml({ ...drillReport(), scenarios: [scenario] })).toContain('class="mark k-partition"');
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
    // A job's mark is a link to its line in the job's history.
    expect(html).toMatch(/<a id="s1-j1-f1" class="mark k-effect hl" href="#s1-j1-f1-text">/);
    expect(html).toMatch(/<a id="s1-j1-f2" class="mark k-effect hl" href="#s1-j1-f2-text">/);
    // A mark nobody names is not highlighted.
    expect(html).toMatch(/<a id="s1-j1-e2" class="mark k-claim" href=/);
  });

  it('opens the timeline of a scenario that did not pass, and leaves a passing one closed', () => {
    const html = renderHtml(reportWithDuplicate());
    expect(section(html, 1)).toMatch(/<details class="timeline-box">/);
    expect(section(html, 2)).toMatch(/<details class="timeline-box" open>/);
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
    // A link relative to report.html, which is written in the run directory, beside each scenario's own.
    expect(html).toMatch(/<li class="fired">[^<]*w1#1:[^<]*<a class="log" href="crash_after_write\/w1\.1\.log"><code>w1\.1\.log<\/code><\/a><\/li>/);
  });

  it('says a drill was interrupted, marks the half-run as such, and lists the runs never started', () => {
    const html = renderHtml(interruptedReport());
    expect(html).toContain('<title>queue-drill: 1/4 passed, interrupted</title>');
    expect(html).toContain('queue-drill: 1/4 passed, 0 failed, 0 vacuous, 1 interrupted, 2 never started, 0 errors');
    expect(html).toContain('<strong>interrupted by SIGINT: 1 scenario run stopped before rest (not judged), 2 never started</strong>');
    expect(html).toContain(
      '<tr class="v-interrupted"><td><a href="#scenario-2">zombie_worker</a></td><td><span class="verdict">INTERRUPTED</span></td>' +
        `<td><span class="reason">interrupted, so not judged: ${INTERRUPTED_LINE}</span></td>`,
    );
    for (const name of ['crash_after_verify', 'world_unreachable']) {
      expect(html).toContain(`<tr class="v-not-started"><td>${name}</td><td><span class="verdict">NEVER STARTED</span></td>`);
    }
    const stopped = section(html, 2);
    expect(stopped).toContain(`<li>interrupted, so not judged: ${INTERRUPTED_LINE}</li>`);
    // Its jobs are where they stood, not failures.
    expect(stopped).toContain('<td>where it stood (not judged)</td>');
    expect(stopped).not.toContain('not as expected');
  });

  it('is the same page for the same report', () => {
    expect(renderHtml(drillReport())).toBe(renderHtml(drillReport()));
  });
});

describe('report.html of a drill on a starved machine', () => {
  /** The <g class="lane"> of the timeline of section `index` (0-based) whose label is `lane`. */
  function laneSvg(html: string, index: number, lane: string): string {
    const found = section(html, index + 1)
      .split('<g class="lane">')
      .find((g) => g.startsWith(`<text class="lane-label" x="4" y="`) && g.includes(`>${lane}</text>`));
    if (found === undefined) throw new Error(`no lane ${lane}`);
    return found;
  }

  it('lays each starved span out in its own process’s lane, from when it began to when it ended; a process with no lane gets one', () => {
    const scenario = inconclusiveScenario();
    const layout = layoutScenario(scenario, 1);
    const starved = layout.marks.filter((mark) => mark.kind === 'starved');
    const origin = Date.parse(scenario.timeline[0]!.at);
    expect(starved.map((mark) => [mark.lane, mark.at, mark.end])).toEqual([
      ['coordinator#1', 500, 620],
      ['w1#2', Date.parse(STARVED_SPAN.from) - origin, Date.parse(STARVED_SPAN.to) - origin],
      ['harness', 2100, 2180],
    ]);
    expect(layout.lanes.map((lane) => lane.id)).toEqual(['coordinator#1', 'w1#1', 'w1#2', 'harness', 'world']);
    expect(starved[1]!.title).toBe(
      `w1#2 starved (the machine, not a fault): ${scenario.timeline.find((e) => e.kind === 'starved' && e.process === 'w1#2')!.detail}`,
    );
    // A process coming up is not drawn: a slow start is its own starved span.
    expect(layout.marks.some((mark) => mark.title.includes('up 120 ms'))).toBe(false);
  });

  it('draws a starved span as a hatched band in its lane, beneath the lease it overlaps, with its detail as the tooltip', () => {
    const html = renderHtml(inconclusiveReport());
    expect(html.match(/<pattern id="qd-starved-hatch"/g)).toHaveLength(1);
    expect(html).toContain('.k-starved rect { fill: url(#qd-starved-hatch)');
    const lane = laneSvg(html, 1, 'w1#2');
    const band =
      /<g id="(s1-h\d+)" class="mark k-starved" tabindex="0"><title>w1#2 starved \(the machine, not a fault\): w1#2 was not run for 510 ms[^<]*<\/title><rect x="([\d.]+)" y="\d+" width="([\d.]+)" height="26"\/><\/g>/.exec(
        lane,
      );
    expect(band, lane).not.toBeNull();
    // Drawn first, so the lease and the points lie over it; and nowhere else.
    expect(lane.indexOf('k-starved')).toBeLessThan(lane.indexOf('k-lease'));
    expect(laneSvg(html, 1, 'w1#1')).not.toContain('k-starved');
    expect(laneSvg(html, 1, 'harness')).toContain('<title>harness starved (the machine, not a fault): harness was not run for 80 ms');
    // 510 ms of the drill's 8,400 ms, across 864 units of plot.
    expect(Number(band![3])).toBeCloseTo((510 / 8400) * 864, 5);
    expect(html).toContain(`<a class="to-band" href="#${band![1]}">on the timeline</a>`);
    // The legend says what the band means.
    expect(html).toMatch(
      /<g class="mark k-starved"><rect [^>]*\/><\/g><\/svg> starved: the machine did not run the process \(load, not a fault\)<\/li>/,
    );
  });

  it('counts the inconclusive scenario apart, and says why: what starvation explains, escaped, and how much the machine starved it', () => {
    const html = renderHtml(inconclusiveReport());
    expect(html).toContain('<title>queue-drill: 1/2 passed, 1 inconclusive</title>');
    expect(html).toContain('<h1>queue-drill: 1/2 passed, 0 failed, 0 vacuous, 1 inconclusive (starved), 0 errors</h1>');
    expect(html).toContain(
      '<p class="starved">The machine starved the drill: worst span w1#2 510 ms (not run from 10:00:01.500 to 10:00:02.010) in slow_machine;',
    );
    // Why, in its row: what starvation explains (not the invariant that did not hold on the starved machine), escaped.
    expect(html).toContain(
      '<tr class="v-inconclusive"><td><a href="#scenario-2">slow_machine</a></td><td><span class="verdict">INCONCLUSIVE</span></td>' +
        `<td><span class="reason">the machine starved it: ${INCONCLUSIVE_LINES[0]!.slice(0, 150)}`,
    );
    const starved = section(html, 2);
    expect(starved).toMatch(/^id="scenario-2" class="scenario v-inconclusive">/);
    expect(starved).toContain('<div class="inconclusive"><h3>Inconclusive: the machine starved the drill:');
    expect(starved).toContain(`<li>${INCONCLUSIVE_LINES[0]}</li>`);
    expect(starved).toContain('| &lt;i&gt;*&lt;/i&gt;</li>');
    expect(starved).not.toContain('<i>');
    expect(starved).toContain('<p class="meta starvation">Starved: 3 starved spans, 710 ms in all; worst span w1#2 510 ms');
    expect(starved).toContain('seed 42, every duration ×2, 8.4 s');
    expect(starved).toContain('<h3>Invariants that did not hold on the starved machine</h3>');
    expect(starved).toMatch(/<details class="timeline-box" open>/);
    // A passing scenario on the same machine says nothing of starvation it did not have.
    expect(section(html, 1)).not.toContain('starvation');
  });
});

describe('report.html of a drill that chose its time scale and ran a starved scenario again', () => {
  const html = renderHtml(retriedReport());
  const header = html.split('<header>')[1]!.split('</header>')[0]!;

  it('says in its header the time scale and how it was chosen', () => {
    expect(header).toContain(
      'exit code 0, time scale ×1.5 (auto: a process started in 589 ms on this machine, a timer fired 4 ms late; ' +
        'every lease, timeout and delay stretched ×1.5).</p>',
    );
  });

  it.each([
    ['the scale 1 given: nothing, as before', 1, null, null],
    ['a scale given', 2, null, ', time scale ×2 (given; every lease, timeout and delay stretched ×2).'],
    ['the scale 1 chosen by auto', 1, { startupMs: 113, timerLatenessMs: 2, scale: 1 }, ', time scale ×1 (auto: this machine was quiet: '],
  ])('says the time scale for %s', (_, timeScale, calibration, expected) => {
    const head = renderHtml({ ...passingReport(), timeScale, calibration }).split('</header>')[0]!;
    if (expected === null) expect(head).not.toContain('time scale');
    else expect(head).toContain(expected);
  });

  it('says in the summary that the pass came on a retry', () => {
    expect(html).toContain(
      '<a href="#scenario-2">slow_machine</a></td><td><span class="verdict">PASS</span> <span class="retried">at ×3, after inconclusive at ×1.5</span></td>',
    );
  });

  it('lists each earlier attempt (scale, verdict, run directory, first inconclusive line, escaped) before this run, after the verdict heading', () => {
    const retried = section(html, 2);
    expect(retried).toMatch(/^id="scenario-2" class="scenario v-pass"><h2><span class="verdict">PASS<\/span> slow_machine<\/h2>/);
    const list = /<ol class="attempts">(.*?)<\/ol>/.exec(retried)![1]!;
    expect(list.split('</li>').slice(0, 2)).toEqual([
      `<li class="v-inconclusive">attempt 1 of 2: inconclusive at time scale ×1.5, 8.4 s, run directory ${EARLIER_RUN_DIR}: ` +
        'job 1 ended running, not done, after w1#2 was not run for 640 ms, from 10:00:01.500 to 10:00:02.140 | ' +
        '&lt;i&gt;&quot;starved&quot;&lt;/i&gt; &amp; *]]&gt;',
      '<li class="v-pass"><strong>attempt 2 of 2 (this run): pass at time scale ×3</strong>',
    ]);
    expect(retried).not.toContain('<i>');
    expect(retried.indexOf('<ol class="attempts">')).toBeLessThan(retried.indexOf('<p class="meta">Queue'));
    expect(section(html, 1)).not.toContain('class="attempts"');
  });
});

describe('report.html says why each scenario did not pass', () => {
  /** Every id the page gives an element, and every in-page link's target. */
  const ids = (html: string) => new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
  const links = (html: string, cls: string) => [...html.matchAll(new RegExp(`class="${cls}" href="#([^"]+)"`, 'g'))].map((m) => m[1]!);

  it('lists failures first in the summary, each row with its reason, each linking to its section by its place in the report', () => {
    const html = renderHtml(drillReport());
    const summary = html.split('<table class="summary">')[1]!.split('</table>')[0]!;
    const rows = [...summary.matchAll(/<tr class="v-(\w+)"><td><a href="#(scenario-\d)">[^<]*<\/a><\/td><td>.*?<\/td><td>(.*?)<\/td>/g)];
    expect(rows.map((m) => [m[1], m[2]])).toEqual([
      ['fail', 'scenario-2'],
      ['error', 'scenario-4'],
      ['vacuous', 'scenario-3'],
      ['pass', 'scenario-1'],
    ]);
    for (const [, verdict, , cell] of rows) {
      if (verdict === 'pass') expect(cell).toBe('-');
      else expect(cell).toMatch(/^<span class="reason">\S[^<]*<\/span>$/);
    }
    // The sections in the same order, each under its own anchor; the page's links to them all lead somewhere.
    expect([...html.matchAll(/<section id="(scenario-\d)"/g)].map((m) => m[1])).toEqual(['scenario-2', 'scenario-4', 'scenario-3', 'scenario-1']);
    expect(section(html, 2)).toContain('<p class="why"><strong>Why:</strong> broke no-duplicate-effect, review-routing: ');
  });

  it('says what broke first, at the top: each finding with its reason and its first sign on the timeline, linked to that mark', () => {
    const html = renderHtml(drillReport());
    const block = /<section class="broke-first"[^>]*>(.*?)<\/section>/.exec(html)![1]!;
    expect(html.indexOf('<section class="broke-first"')).toBeLessThan(html.indexOf('<nav'));
    const items = block.split('<li ').slice(1);
    expect(items.map((item) => /href="#(scenario-\d)"/.exec(item)![1])).toEqual(['scenario-2', 'scenario-4', 'scenario-3']);
    // The failure's first sign: the earliest mark its evidence names (its first lease, 0.20 s in), with the process and what.
    expect(items[0]).toContain(
      '<span class="first">First sign: <a class="to-mark" href="#s1-j1-e2-lease">0.20 s, w1#1: job 1: lease of epoch 1, still open at the end</a>',
    );
    expect(ids(html)).toContain('s1-j1-e2-lease');
    // A harness error and a fault that never fired leave no mark: the reason alone.
    expect(items[1]).toContain('<span class="reason">the harness failed: QD_WORLD_NOT_READY');
    expect(items[2]).toContain('<span class="reason">crash at after_verify (rule kill-after-verify, worker=w9) never fired: 0 hits</span>');
    expect(items[1]).not.toContain('First sign');
    expect(items[2]).not.toContain('First sign');
    // A starved run's first sign is its worst starved span, a band (the machine's doing, not evidence).
    const starved = renderHtml(inconclusiveReport());
    expect(/<section class="broke-first".*?<\/section>/.exec(starved)![0]).toMatch(
      /<a class="to-band" href="#(s1-h\d+)">[\d.]+ s, w1#2: w1#2 starved \(the machine, not a fault\)/,
    );
    // Nothing to say when everything passed.
    expect(renderHtml(passingReport())).not.toContain('<section class="broke-first"');
  });

  it('points an expectation missed at where the job ended, and highlights it', () => {
    const report = drillReport();
    const failing = report.scenarios[1]!;
    failing.invariants = failing.invariants.map((v) => ({ ...v, status: 'held', evidence: [] }));
    const html = renderHtml(report);
    // The job's last event: the second charge.
    expect(/<section class="broke-first".*?<\/section>/.exec(html)![0]).toContain(
      '<a class="to-mark" href="#s1-j1-f2">3.70 s, the world: job 1: the world applied charge',
    );
    expect(html).toMatch(/<a id="s1-j1-f2" class="mark k-effect hl"/);
  });

  it("prints each job's history as text under the timeline, each line linked to its mark and the mark back to it", () => {
    const html = renderHtml(drillReport());
    const passed = section(html, 1);
    expect(passed.indexOf('<details class="lives">')).toBeGreaterThan(passed.indexOf('</svg>'));
    // The lines report.md prints (job-life.ts), one per event.
    const lines = [...passed.matchAll(/<li id="(s0-[^"]+)-text"><a class="to-event" href="#([^"]+)">([^<]*)<\/a>/g)];
    expect(lines).toHaveLength(drillReport().scenarios[0]!.jobs[0]!.events.length);
    expect(lines[0]![3]).toMatch(/^2026-08-25T10:00:00\.100Z +state +\(new\) +-&gt; pending +#0 producer: enqueued$/);
    for (const [, line, mark] of lines) expect(line).toBe(mark);
    // Both ways: every job mark's link and every line's link lead to an element of the page.
    const all = ids(html);
    const marks = [...html.matchAll(/<a id="(s\d-j[^"]+)" class="mark [^"]*" href="#([^"]+)"/g)];
    expect(marks.length).toBeGreaterThan(10);
    for (const [, , text] of marks) expect(all, text).toContain(text!);
    for (const target of links(html, 'to-event')) expect(all, target).toContain(target);
    // Open where the scenario did not pass; its evidence's lines marked.
    expect(section(html, 2)).toContain('<details class="lives" open>');
    expect(section(html, 2)).toContain('<li id="s1-j1-f2-text" class="hl">');
  });

  it('links each log by its place beside report.html: the scenario directory, then its name there', () => {
    const scenario = { runDir: '/runs/2026-08-25T10-00-00Z/crash after write' };
    expect(logHref(scenario, 'w1.1.log')).toBe('crash%20after%20write/w1.1.log');
    expect(logHref(scenario, '/runs/2026-08-25T10-00-00Z/crash after write/w1.1.log')).toBe('crash%20after%20write/w1.1.log');
    expect(logHref(scenario, '/elsewhere/w1.1.log')).toBe('crash%20after%20write/w1.1.log');
    expect(logHref({ runDir: 'drill-runs/x/s.retry1/' }, 'sub/#1.log')).toBe('s.retry1/sub/%231.log');
    const html = renderHtml(drillReport());
    expect(section(html, 1)).toContain(
      '<p class="meta logs">Logs: <a class="log" href="crash_after_write/w1.log"><code>w1.log</code></a> ' +
        '<a class="log" href="crash_after_write/coordinator.log"><code>coordinator.log</code></a></p>',
    );
  });
});

describe("report.html's timeline: the axis from the producers' release, and labels that never overlap", () => {
  /** The passing fixture, its producers released 400 ms after its first event, with a note as the harness writes it. */
  function released(): ScenarioReport {
    const scenario = drillReport().scenarios[0]!;
    scenario.timeline.splice(1, 0, {
      at: '2026-08-25T10:00:00.350Z',
      kind: 'note',
      detail: 'producers p1 released to begin enqueueing together at 2026-08-25T10:00:00.400Z',
    });
    return scenario;
  }

  it('finds when the producers went, from the instant the note names', () => {
    expect(producersReleasedAt(released())).toBe(Date.parse('2026-08-25T10:00:00.400Z'));
    expect(producersReleasedAt(drillReport().scenarios[0]!)).toBeNull();
    expect(layoutScenario(released(), 0).startup).toBe(400);
    expect(layoutScenario(drillReport().scenarios[0]!, 0).startup).toBe(0);
  });

  it('folds the start-up into one narrow band, still drawing what happened in it, and counts the axis from the release', () => {
    const svg = timelineSvg(layoutScenario(released(), 0), new Set(), 'timeline');
    expect(svg).toContain(`<rect class="startup" x="120" y="36" width="${STARTUP_BAND}"`);
    expect(svg).toContain('<text class="band-label" x="120" y="12">start-up 0.4 s</text>');
    const ticks = [...svg.matchAll(/<text class="axis" x="([\d.]+)" y="\d+">([^<]+)<\/text>/g)].map((m) => [Number(m[1]), m[2]]);
    expect(ticks[0]).toEqual([120 + STARTUP_BAND, '0.0 s']);
    // The claim at 200 ms came in the start-up: drawn inside the band, to scale within it.
    expect(svg).toContain(`<path d="M${120 + STARTUP_BAND / 2 - 5},`);
    expect(axisTime(200, 400)).toBe('start-up, 0.20 s in');
    expect(axisTime(1400, 400)).toBe('1.00 s');
    // The length the summary gives is the drill's from the release.
    expect(renderHtml({ ...passingReport(), scenarios: [released()] })).toContain(
      "<summary>Timeline (3 lanes, 1.4 s from the producers' release, after a start-up of 0.4 s)</summary>",
    );
  });

  it('gives ticks that never read the same, however short the drill', () => {
    const labels = timeAxis(300, 0, 120, 864).ticks.map((tick) => tick.label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels.slice(0, 3)).toEqual(['0.00 s', '0.05 s', '0.10 s']);
  });

  it('places labels so that none overlaps another or a point, shifting one along its span, else leaving it to the tooltip', () => {
    const placed = placeLabels(
      [
        { id: 'lease', x: 100, width: 40, limit: 400 },
        { id: 'pause', x: 110, width: 30, limit: 500 },
        { id: 'tiny', x: 120, width: 30, limit: 140 },
      ],
      [{ from: 80, to: 90 }],
    );
    expect(placed.get('lease')).toBe(100);
    expect(placed.get('pause')).toBeGreaterThanOrEqual(146);
    expect(placed.has('tiny')).toBe(false);
    const obstacle = placeLabels([{ id: 'a', x: 100, width: 40, limit: 400 }], [{ from: 98, to: 116 }]);
    expect(obstacle.get('a')).toBeGreaterThanOrEqual(122);
  });

  it('draws a lease and the pause over it with labels apart, and cuts a lane name too long for its column', () => {
    const scenario = drillReport().scenarios[0]!;
    const at = (ms: number) => new Date(Date.parse(scenario.timeline[0]!.at) + ms).toISOString();
    scenario.timeline.push(
      { at: at(210), kind: 'pause', process: 'w1#1', detail: 'SIGSTOP for 600 ms' },
      { at: at(810), kind: 'resume', process: 'w1#1', detail: 'SIGCONT after the pause' },
      { at: at(5), kind: 'spawn', process: 'a-very-long-process-name#1', detail: 'worker' },
      { at: at(900), kind: 'kill', process: 'a-very-long-process-name#1', detail: 'SIGKILL' },
    );
    const svg = timelineSvg(layoutScenario(scenario, 0), new Set(), 'timeline');
    const lane = svg.split('<g class="lane">').find((g) => g.includes('>w1#1</text>'))!;
    const labels = [...lane.matchAll(/<text class="span-label" x="([\d.]+)" y="\d+" aria-hidden="true">([^<]+)<\/text>/g)].map((m) => ({
      from: Number(m[1]),
      to: Number(m[1]) + textWidth(m[2]!, 10),
      text: m[2],
    }));
    expect(labels.map((label) => label.text).sort()).toEqual(['job 1 e1', 'paused']);
    expect(labels[0]!.to <= labels[1]!.from || labels[1]!.to <= labels[0]!.from).toBe(true);
    // Drawn after every mark of the lane, so no span hides a label.
    expect(lane.lastIndexOf('class="mark')).toBeLessThan(lane.indexOf('span-label'));
    expect(svg).toMatch(/<text class="lane-label" x="4" y="\d+"><title>a-very-long-process-name#1<\/title>a-very-long-…<\/text>/);
  });
});
