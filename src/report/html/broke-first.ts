import { isFinding } from '../failures-first.js';
import { escapeHtml as h } from './escape.js';
import { worstStarvedBand } from './evidence-links.js';
import type { Mark } from './lanes.js';
import type { ScenarioView } from './scenario-view.js';
import { axisTime } from './time-axis.js';
import { VERDICT_WORD } from './verdict-word.js';

/*
 * "What broke first", at the top of report.html: for each scenario that
 * failed, was starved or was vacuous (failures first), why in one line, and
 * the first sign of it on its timeline (when, in the axis's time, which
 * process, what), linked to that mark. The first sign is the earliest mark
 * the evidence of its broken invariants names, else the earliest end of a job
 * that did not end as expected; for a starved run, its worst starved span. A
 * fault that never fired, or the harness failing, leaves no mark to point at.
 */

/** The earliest of `ids` on the timeline. */
function earliest(view: ScenarioView, ids: Iterable<string>): Mark | undefined {
  const wanted = new Set(ids);
  return view.layout.marks.filter((mark) => wanted.has(mark.id)).sort((a, b) => a.at - b.at)[0];
}

/** The mark of a scenario's first sign, and whether it is a starved band (the machine's doing, not evidence). */
function firstSign(view: ScenarioView): { mark: Mark; band: boolean } | null {
  const kind = view.reason?.kind;
  if (kind === 'starved') {
    const id = worstStarvedBand(view.scenario, view.index);
    const mark = id !== null ? earliest(view, [id]) : undefined;
    return mark !== undefined ? { mark, band: true } : null;
  }
  if (kind !== 'invariant' && kind !== 'expectation') return null;
  const mark = earliest(view, view.invariantMarks) ?? earliest(view, view.expectationMarks);
  return mark !== undefined ? { mark, band: false } : null;
}

function item(view: ScenarioView, anchor: string): string {
  const sign = firstSign(view);
  const where = sign !== null ? `${axisTime(sign.mark.at, view.layout.startup)}, ${sign.mark.lane === 'world' ? 'the world' : sign.mark.lane}` : '';
  const first =
    sign !== null
      ? `<br><span class="first">First sign: <a class="${sign.band ? 'to-band' : 'to-mark'}" href="#${h(sign.mark.id)}">` +
        `${h(where)}: ${h(sign.mark.title)}</a></span>`
      : '';
  return (
    `<li class="v-${view.scenario.verdict}"><a href="#${anchor}">${h(view.label)}</a> <span class="verdict">${VERDICT_WORD[view.scenario.verdict]}</span> ` +
    `<span class="reason">${h(view.reason?.text ?? '')}</span>${first}</li>`
  );
}

/** The block, in the order given (failures first); '' when every scenario passed or none was a finding. */
export function brokeFirst(views: readonly ScenarioView[], anchorOf: (index: number) => string): string {
  const findings = views.filter((view) => isFinding(view.scenario.verdict));
  if (findings.length === 0) return '';
  return (
    '<section class="broke-first" aria-label="what broke first"><h2>What broke first</h2>' +
    `<ol>${findings.map((view) => item(view, anchorOf(view.index))).join('')}</ol></section>`
  );
}
