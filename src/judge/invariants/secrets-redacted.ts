import { redact, secretSpellings } from '../../kernel/redact.js';
import type { Evidence } from '../evidence.js';
import { defineInvariant, evidenceList, jobLabel } from './support.js';

/*
 * Every planted secret is searched for, as is and in the forms it takes once
 * written into JSON or a URL, in every text a person or a report will see. A
 * finding names the place (file and line, or job and column) and shows a short
 * context in which every secret is masked: the report must not become the leak.
 * Secrets shorter than 4 characters are not searched (as src/kernel/redact.ts
 * does not redact them): they would be found in ordinary text by chance.
 * Judged: each planted secret put to the test, that is carried in the payload
 * of a job that ran (a worker read it) and searched for in at least one place.
 */

/** Shorter than this a value cannot be told apart from ordinary text. */
export const MIN_SECRET_LENGTH = 4;

/** A secret as a report may print it: a few leading characters and its length ("sk-…(32 chars)"). */
export function maskSecret(secret: string): string {
  const shown = secret.length >= 12 ? 3 : secret.length >= 8 ? 2 : secret.length >= 6 ? 1 : 0;
  // Only plain characters: a quote or a backslash in a mask would read as the end of a string around it.
  const prefix = /^[A-Za-z0-9_-]*/.exec(secret.slice(0, shown))?.[0] ?? '';
  return `${prefix}…(${secret.length} chars)`;
}

/** One text to search, and how to name where it is. */
interface Place {
  where: string;
  text: string;
  /** Name lines within it (a log, a report). */
  lines: boolean;
}

function placesOf(evidence: Evidence): Place[] {
  const places: Place[] = [];
  for (const log of evidenceList(evidence, 'logs')) places.push({ where: `log ${log.name}`, text: String(log.text ?? ''), lines: true });
  for (const artefact of evidenceList(evidence, 'artefacts'))
    places.push({ where: `artefact ${artefact.name}`, text: String(artefact.text ?? ''), lines: true });
  for (const job of evidenceList(evidence, 'jobs')) {
    if (job.lastError) places.push({ where: `${jobLabel(job)} last_error`, text: job.lastError, lines: false });
    if (job.reviewReason) places.push({ where: `${jobLabel(job)} review_reason`, text: job.reviewReason, lines: false });
  }
  for (const event of evidenceList(evidence, 'events')) {
    if (event.reason) places.push({ where: `job ${event.jobId} event #${event.seq} reason`, text: event.reason, lines: false });
  }
  for (const row of evidenceList(evidence, 'txLog')) {
    if (row.detail)
      places.push({ where: `job ${row.job_id} tx #${row.id} (${row.step_id} ${row.action} ${row.status}) detail`, text: row.detail, lines: false });
    if (row.external_reference)
      places.push({ where: `job ${row.job_id} tx #${row.id} external_reference`, text: row.external_reference, lines: false });
  }
  for (const incident of evidenceList(evidence, 'incidents')) {
    places.push({
      where: `job ${incident.job_id} incident #${incident.id} (${incident.step_id}) error`,
      text: String(incident.error ?? ''),
      lines: false,
    });
  }
  // The harness's timeline goes into the report as it is.
  evidenceList(evidence, 'timeline').forEach((event, index) => {
    if (event.detail)
      places.push({ where: `timeline #${index + 1} (${event.kind}${event.process ? ` ${event.process}` : ''})`, text: event.detail, lines: false });
  });
  return places;
}

/** Whether a job whose payload carries the secret was claimed at least once: a worker read it, and could have leaked it. */
function ranWith(evidence: Evidence, secret: string): boolean {
  const spelled = spellings(secret);
  return evidenceList(evidence, 'jobs').some((job) => job.attempts > 0 && spelled.some((spelling) => String(job.payload ?? '').includes(spelling)));
}

/** The spellings a secret takes in stored text (src/kernel/redact.ts redacts the same ones). */
const spellings = secretSpellings;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A short context around one occurrence, with every secret in it masked: the
 * line is cut into plain text and secret spellings first, so the window can
 * only ever cut through a mask, never through a secret.
 */
function context(text: string, index: number, length: number, all: RegExp, maskOf: Map<string, string>): string {
  const from = Math.max(0, index - 40);
  const to = Math.min(text.length, index + length + 40);
  // Widen to whole occurrences of any secret that straddles the window's edges.
  let start = from;
  let end = to;
  all.lastIndex = 0;
  for (const match of text.matchAll(all)) {
    const a = match.index;
    const b = a + match[0].length;
    if (a < start && b > start) start = a;
    if (a < end && b > end) end = b;
  }
  // Split on the secrets (a capturing split puts them at odd indexes): secrets
  // become masks, and the plain text between is redacted by shape too, since a
  // line that leaks one secret may leak others nobody planted.
  const parts = text.slice(start, end).split(new RegExp(`(${all.source})`));
  const window = parts
    .map((part, i) => (i % 2 === 1 ? `[${maskOf.get(part) ?? '…'}]` : redact(part)))
    .join('')
    .replace(/\s+/g, ' ');
  const cut = window.length > 160 ? `${window.slice(0, 160)}…` : window;
  return `${start > 0 ? '…' : ''}${cut}${end < text.length ? '…' : ''}`;
}

/**
 * Secrets the line-by-line search cannot see: one split across lines (a writer
 * that wrapped or chunked a long value), or one that holds a newline itself (a
 * PEM key). Found in the text with its line breaks taken out, named by the
 * lines it spans; a secret already found in this place is not reported twice.
 */
function splitAcrossLines(place: Place, secrets: readonly string[], alreadyFound: ReadonlySet<string>): string[] {
  const starts: number[] = [];
  let joined = '';
  for (const line of place.text.split('\n')) {
    starts.push(joined.length);
    joined += line.replace(/\r$/, '');
  }
  const lineAt = (offset: number) => {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= offset) line++;
    return line + 1;
  };
  const found: string[] = [];
  for (const secret of secrets) {
    const mask = maskSecret(secret);
    if (alreadyFound.has(mask)) continue;
    for (const spelling of spellings(secret).map((s) => s.replace(/\r?\n/g, ''))) {
      if (spelling.length < MIN_SECRET_LENGTH) continue;
      const at = joined.indexOf(spelling);
      if (at === -1) continue;
      const [first, last] = [lineAt(at), lineAt(at + spelling.length - 1)];
      if (first === last) continue; // on one line: the line-by-line search names it
      found.push(`secret ${mask} found split across ${place.where} lines ${first}-${last}`);
      break;
    }
  }
  return found;
}

/** No secret planted in a payload appears in the logs, the store's errors and reasons, the transaction log, the incidents, the timeline or the report. */
export const secretsRedacted = defineInvariant({
  id: 'secrets-redacted',
  statement: "no secret from a payload appears in the store's errors, the logs or the report",
  needs: [],
  judge: (evidence, found) => {
    const planted = [...new Set(evidenceList(evidence, 'secrets').filter((s): s is string => typeof s === 'string' && s.length > 0))];
    const secrets = planted.filter((s) => s.length >= MIN_SECRET_LENGTH);
    if (planted.length === 0) {
      found.note('no secret was planted in this drill: nothing to look for');
      return;
    }
    const short = planted.length - secrets.length;
    if (short > 0) found.note(`${short} planted secret(s) shorter than ${MIN_SECRET_LENGTH} characters were not searched for`);
    if (secrets.length === 0) return;
    const maskOf = new Map<string, string>();
    for (const secret of secrets) for (const spelling of spellings(secret)) if (!maskOf.has(spelling)) maskOf.set(spelling, maskSecret(secret));
    // Longest first, so a secret that contains another is matched whole.
    const all = new RegExp(
      [...maskOf.keys()]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    const places = placesOf(evidence);
    for (const secret of secrets) {
      if (ranWith(evidence, secret) && places.length > 0) found.judged();
      else found.note(`secret ${maskSecret(secret)}: no job that carries it in its payload ever ran, so nothing had a chance to leak it`);
    }
    for (const place of places) {
      const hits = new Map<string, { count: number; first: string }>();
      const lines = place.lines ? place.text.split('\n') : [place.text];
      lines.forEach((line, lineIndex) => {
        all.lastIndex = 0;
        for (const match of line.matchAll(all)) {
          const mask = maskOf.get(match[0]) ?? '…';
          const seen = hits.get(mask);
          if (seen) {
            seen.count++;
            continue;
          }
          const at = place.lines ? `${place.where} line ${lineIndex + 1}` : place.where;
          hits.set(mask, { count: 1, first: `${at}: ${context(line, match.index, match[0].length, all, maskOf)}` });
        }
      });
      for (const [mask, hit] of hits) {
        found.breach(`secret ${mask} found in ${hit.first}${hit.count > 1 ? ` (${hit.count} times in ${place.where})` : ''}`);
      }
      if (place.lines) for (const line of splitAcrossLines(place, secrets, new Set(hits.keys()))) found.breach(line);
    }
  },
});
