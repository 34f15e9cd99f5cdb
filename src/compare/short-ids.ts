import { escapeHtml as h } from '../report/html/escape.js';

/*
 * Long ids in a cell's evidence, shortened for display. A matrix cell is a
 * fifth of a page wide, and a queue's own ids can be most of that on their
 * own: a BullMQ job key (`bull:qd-drill-<run>-<scenario>:<job>`) runs to 90
 * characters, a UUID to 36. Shown whole, one wraps over three or four lines
 * and drowns the sentence around it. So an id over ID_MAX characters shows
 * its head and its tail (where a key's job number is), and the whole id stays
 * in the title of the <abbr> that holds it: hovering, a screen reader or a
 * copy of the page's source still has every character; the cell's link leads
 * to the full evidence in the column's report.
 */

/** The longest id a cell shows whole. */
export const ID_MAX = 24;
const HEAD = 10;
const TAIL = 8;

/**
 * An id-like run: letters, digits and the punctuation keys and paths are made
 * of. Not `=`, so `key=<id>` keeps its name whole and only the value is
 * shortened; not quotes, brackets or commas, which end an id in a sentence.
 */
const RUN = /[\w.:/#@+~-]+/g;

/** Whether a run of id characters is an id to shorten: long, with a digit (a long word or name is left to wrap), and not a URL (where to look). */
function isLongId(run: string): boolean {
  return run.length > ID_MAX && /\d/.test(run) && !run.includes('://');
}

/** An id's head and tail around an ellipsis. */
export function shortId(id: string): string {
  return id.length > ID_MAX ? `${id.slice(0, HEAD)}…${id.slice(-TAIL)}` : id;
}

/**
 * What ends a run but is not its id: the sentence's dots and colons (`job
 * <id>: …`), and a key's named suffixes (`<id>:lock`, `<id>:charge`), shown
 * as they are so that one id looks the same, shortened, in every line.
 */
const NOT_THE_ID = /(?::[A-Za-z]+)*[.:]*$/;

/** A line of evidence as HTML, escaped, each long id in it shortened inside an <abbr> whose title is the whole id. */
export function evidenceHtml(line: string): string {
  let out = '';
  let last = 0;
  for (const match of line.matchAll(RUN)) {
    const id = match[0].replace(NOT_THE_ID, '');
    if (!isLongId(id)) continue;
    out += `${h(line.slice(last, match.index))}<abbr class="id" title="${h(id)}">${h(shortId(id))}</abbr>`;
    last = match.index + id.length;
  }
  return out + h(line.slice(last));
}
