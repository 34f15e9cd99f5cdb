/*
 * The style and the one small script of report.html (and the shared part of
 * compare.html's), inline so the page needs nothing else. Verdicts and marks
 * differ by shape, weight and pattern as well as colour, so a grey-scale
 * print still reads; focus is always visible; at phone width tables stack
 * and the timeline scrolls sideways.
 */

/** The style every queue-drill page shares: type, tables, the copy box, and the verdicts' shapes. */
export const BASE_STYLE = `
:root { --ink: #1b1b1b; --muted: #555; --line: #bbb; --bad: #b00020; --good: #176b2c; --warn: #8a5a00; --hl: #ffd400; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1280px; padding: 16px; color: var(--ink); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.4rem; margin: 0 0 4px; } h2 { font-size: 1.15rem; margin: 0 0 6px; } h3 { font-size: 1rem; margin: 14px 0 6px; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
a { color: #0645ad; } a:focus, button:focus, summary:focus, .mark:focus { outline: 3px solid var(--ink); outline-offset: 2px; }
.cmd { display: flex; gap: 8px; align-items: flex-start; background: #f3f3f3; border: 1px solid var(--line); padding: 6px 8px; margin: 6px 0; }
.cmd code { flex: 1; }
button.copy { font: inherit; padding: 2px 10px; border: 1px solid var(--ink); background: #fff; cursor: pointer; }
.verdict { font-weight: 700; padding: 0 6px; border: 2px solid currentColor; white-space: nowrap; }
.v-pass .verdict { color: var(--good); } .v-fail .verdict, .v-error .verdict { color: var(--bad); border-style: double; border-width: 4px; }
.v-vacuous .verdict { color: var(--warn); border-style: dashed; }
.v-not_judged .verdict, .v-not_supported .verdict { color: var(--muted); border-style: dotted; }
.v-interrupted .verdict { color: var(--bad); border-left-width: 10px; }
.v-inconclusive .verdict { color: var(--ink); border-style: dashed; background: repeating-linear-gradient(135deg, #fff 0 3px, #ddd 3px 6px); }
.v-not-started .verdict { color: var(--muted); border-style: dotted; border-width: 1px; }
.interrupted { border-left: 10px solid var(--bad); padding: 4px 10px; background: #f3f3f3; }
@media print { .copy { display: none; } details { display: block; } }
`;

/** report.html's style: the shared one, with its sections, timeline marks and their highlights. */
export const PAGE_STYLE = `${BASE_STYLE}
section.scenario { border-top: 3px solid var(--ink); padding: 12px 0 4px; margin-top: 18px; }
section.v-fail, section.v-error { border-top-style: double; border-top-width: 6px; } section.v-interrupted { border-top-style: dashed; }
section.v-inconclusive { border-top-style: dashed; border-top-color: #888; }
.inconclusive { border-left: 10px solid #888; padding: 4px 10px; background: #f3f3f3; }
.inconclusive li, ol.attempts li { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; } .retried { color: var(--muted); font-size: 12px; }
.meta { color: var(--muted); font-size: 13px; }
.problems li, ul.broken .evidence { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
tr.bad td { font-weight: 600; }
.scroll { overflow-x: auto; border: 1px solid var(--line); } .wide { overflow-x: auto; }
svg.timeline { display: block; width: 100%; min-width: 900px; font: 11px system-ui, sans-serif; }
svg.timeline .tick { stroke: #e2e2e2; } svg.timeline .axis { fill: var(--muted); text-anchor: middle; }
svg.timeline .life { stroke: #999; stroke-width: 1; stroke-dasharray: 2 3; } svg.timeline .lane-label { fill: var(--ink); font-weight: 600; }
.mark { fill: #666; stroke: var(--ink); stroke-width: 1; }
svg.timeline .span-label { fill: var(--ink); font-size: 10px; pointer-events: none; }
.mark .ink, .mark .cross { fill: none; stroke-width: 2.5; } .mark .ring { fill: #fff; stroke-width: 2; }
.k-lease rect { fill: #dbe7f7; stroke: #3a5f8f; } .k-pause rect { fill: #eee; stroke: var(--ink); stroke-dasharray: 3 2; }
.k-partition rect { fill: #fbe3d6; stroke: #a0522d; stroke-dasharray: 6 2; } .k-network .ink { stroke: #a0522d; }
.k-starved rect { fill: url(#qd-starved-hatch) #ddd; stroke: #888; stroke-width: 1; stroke-dasharray: 1 2; }
.k-claim { fill: #3a5f8f; } .k-release { fill: #fff; } .k-done { fill: var(--good); } .k-done .ink { stroke: #fff; }
.k-review { fill: #fff; stroke-width: 2; } .k-refused .cross { stroke: var(--bad); } .k-kill .cross { stroke: var(--ink); stroke-width: 4; }
.k-effect { fill: #222; } .k-fault { fill: var(--hl); stroke-width: 1.5; } .k-checkpoint { fill: #888; stroke: none; }
.mark.hl > :not(title) { stroke: var(--bad); stroke-width: 3.5; filter: drop-shadow(0 0 3px var(--hl)); }
.mark.hl.k-lease rect { stroke-dasharray: none; }
.mark:target > :not(title) { stroke: var(--bad); stroke-width: 5; }
svg.timeline .startup { fill: #f1f1f1; stroke: #ccc; stroke-dasharray: 2 2; } svg.timeline .band-label { fill: var(--muted); }
a.mark { cursor: pointer; }
.broke-first { border: 2px solid var(--ink); padding: 6px 12px; margin: 12px 0; } .broke-first ol { margin: 4px 0; padding-left: 22px; }
.broke-first li { margin: 4px 0; } .broke-first .first, .reason { font-size: 13px; } .broke-first .first { color: var(--muted); }
p.why { margin: 4px 0 8px; }
details.lives > summary { font-weight: 600; margin: 10px 0 4px; }
.life { margin: 6px 0 10px; } .life p { margin: 0; font: 600 13px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.life ol { list-style: none; margin: 0; padding-left: 14px; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
.life, .broke-first, .why { overflow-wrap: anywhere; }
.life li a { color: var(--ink); text-decoration: none; } .life li a:hover { text-decoration: underline; }
.life li.hl { background: #fff3b0; font-weight: 700; } .life li:target { outline: 2px solid var(--bad); }
.life.bad p { color: var(--bad); } a.log code { word-break: normal; }
ul.legend { display: flex; flex-wrap: wrap; gap: 4px 18px; list-style: none; padding: 0; } ul.legend li { display: flex; align-items: center; gap: 4px; }
@media (max-width: 640px) {
  body { padding: 8px; font-size: 14px; }
  table.summary thead { display: none; }
  table.summary tr, table.summary td { display: block; border: none; padding: 1px 4px; }
  table.summary tr { border-bottom: 1px solid var(--line); padding: 4px 0; }
}
@media print { .scroll { overflow: visible; } svg.timeline { min-width: 0; } }
`;

/** Copy buttons: the command to the clipboard, or selected for a copy by hand where the clipboard is not allowed (a file:// page). */
export const COPY_SCRIPT = `
for (const button of document.querySelectorAll('button.copy')) {
  button.addEventListener('click', async () => {
    const text = button.getAttribute('data-copy') || '';
    try { await navigator.clipboard.writeText(text); button.textContent = 'copied'; }
    catch {
      const range = document.createRange();
      range.selectNodeContents(button.previousElementSibling);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = 'selected: press Ctrl+C';
    }
  });
}
`;

/**
 * report.html's script: the copy buttons, and a link within the page (to a mark, a starved band, a line of a job's
 * history, from either side) that opens every closed box holding its target, so what it points at is shown.
 */
export const PAGE_SCRIPT = `${COPY_SCRIPT}
function reveal(id) {
  const target = id ? document.getElementById(id) : null;
  for (let box = target?.closest('details'); box; box = box.parentElement?.closest('details')) box.open = true;
}
const idOf = (href) => { try { return decodeURIComponent((href || '').slice(1)); } catch { return ''; } };
for (const link of document.querySelectorAll('a[href^="#"]')) {
  link.addEventListener('click', () => reveal(idOf(link.getAttribute('href'))));
}
addEventListener('hashchange', () => reveal(idOf(location.hash)));
reveal(idOf(location.hash));
`;
