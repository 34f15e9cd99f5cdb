import { describe, expect, it } from 'vitest';
import { evidenceTargets } from '../../src/report/html/evidence-links.js';
import { layoutScenario } from '../../src/report/html/lanes.js';
import { renderHtml } from '../../src/report/html/render-html.js';
import type { DrillReport } from '../../src/report/schema.js';
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

describe('report.html of a drill on a starved machine', () => {
  /** The <g class="lane"> of the timeline of section `index` (0-based) whose label is `lane`. */
  function laneSvg(html: string, index: number, lane: string): string {
    const section = html.split('<section ')[index + 1]!;
    const found = section.split('<g class="lane">').find((g) => g.startsWith(`<text class="lane-label" x="4" y="`) && g.includes(`>${lane}</text>`));
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
    expect(html).toMatch(
      /<tr class="v-inconclusive"><td><a href="#scenario-2">slow_machine<\/a><\/td><td><span class="verdict">INCONCLUSIVE<\/span><\/td><td>no-lost-job \(not held on the starved machine\)<\/td>/,
    );
    const section = html.split('<section ')[2]!;
    expect(section).toMatch(/^id="scenario-2" class="scenario v-inconclusive">/);
    expect(section).toContain('<div class="inconclusive"><h3>Inconclusive: the machine starved the drill:');
    expect(section).toContain(`<li>${INCONCLUSIVE_LINES[0]}</li>`);
    expect(section).toContain('| &lt;i&gt;*&lt;/i&gt;</li>');
    expect(section).not.toContain('<i>');
    expect(section).toContain('<p class="meta starvation">Starved: 3 starved spans, 710 ms in all; worst span w1#2 510 ms');
    expect(section).toContain('seed 42, every duration ×2, 8.4 s');
    expect(section).toContain('<h3>Invariants that did not hold on the starved machine</h3>');
    expect(section).toMatch(/<details class="timeline-box" open>/);
    // A passing scenario on the same machine says nothing of starvation it did not have.
    expect(html.split('<section ')[1]).not.toContain('starvation');
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
    const section = html.split('<section ')[2]!;
    expect(section).toMatch(/^id="scenario-2" class="scenario v-pass"><h2><span class="verdict">PASS<\/span> slow_machine<\/h2>/);
    const list = /<ol class="attempts">(.*?)<\/ol>/.exec(section)![1]!;
    expect(list.split('</li>').slice(0, 2)).toEqual([
      `<li class="v-inconclusive">attempt 1 of 2: inconclusive at time scale ×1.5, 8.4 s, run directory ${EARLIER_RUN_DIR}: ` +
        'job 1 ended running, not done, after w1#2 was not run for 640 ms, from 10:00:01.500 to 10:00:02.140 | ' +
        '&lt;i&gt;&quot;starved&quot;&lt;/i&gt; &amp; *]]&gt;',
      '<li class="v-pass"><strong>attempt 2 of 2 (this run): pass at time scale ×3</strong>',
    ]);
    expect(section).not.toContain('<i>');
    expect(section.indexOf('<ol class="attempts">')).toBeLessThan(section.indexOf('<p class="meta">Queue'));
    expect(html.split('<section ')[1]).not.toContain('class="attempts"');
  });
});
