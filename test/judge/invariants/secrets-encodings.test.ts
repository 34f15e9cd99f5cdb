import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../src/judge/evidence.js';
import { secretsRedacted } from '../../../src/judge/invariants/secrets-redacted.js';
import { redact, secretSpellings } from '../../../src/kernel/redact.js';
import { cleanEvidence, judged, SECRET } from './evidence-builder.js';

/*
 * Every spelling a secret takes once stored, in every kind of place a drill
 * writes: secrets-redacted finds each, names the place, and never prints the
 * spelling; and redaction (what the harness applies to what it writes) takes
 * each out. A spelling is the payload's JSON holding the secret, encoded as a
 * queue or a library would store it, so the secret sits at an offset inside
 * the encoding, as it would in a real payload.
 */

const payload = (prefix: string) => JSON.stringify({ to: `${prefix}ops@example.com`, api_key: SECRET });

const ENCODINGS: [string, (prefix: string) => string][] = [
  ['as is', (p) => `${p} key ${SECRET}`],
  ['JSON-escaped', (p) => JSON.stringify(payload(p))],
  ['JSON in JSON', (p) => JSON.stringify(JSON.stringify(payload(p)))],
  ['URL-encoded', (p) => `https://hooks.example.com/?p=${encodeURIComponent(payload(p))}`],
  ['base64', (p) => Buffer.from(payload(p)).toString('base64')],
  ['base64url', (p) => Buffer.from(payload(p)).toString('base64url')],
  ['hex', (p) => Buffer.from(payload(p)).toString('hex')],
  ['HEX', (p) => Buffer.from(payload(p)).toString('hex').toUpperCase()],
  ['base64 of the JSON-escaped payload', (p) => Buffer.from(JSON.stringify(payload(p))).toString('base64')],
];

/** Each kind of place a secret can reach, and the words a finding names it by. */
const PLACES: [string, (evidence: Evidence, text: string) => void, RegExp][] = [
  [
    'a log',
    (e, text) => {
      e.logs[0]!.text += `${JSON.stringify({ event: 'stored', value: text })}\n`;
    },
    /found in log w1\.log line 3/,
  ],
  [
    'a report artefact',
    (e, text) => {
      e.artefacts[0]!.text += `\n${text}`;
    },
    /found in artefact report\.json line 2/,
  ],
  [
    "a job's stored error",
    (e, text) => {
      e.jobs[0]!.lastError = `upstream said: ${text}`;
    },
    /found in job 1 .*last_error/,
  ],
  [
    'a history reason',
    (e, text) => {
      e.events[0]!.reason = `failed: ${text}`;
    },
    /found in job 1 event #\d+ reason/,
  ],
  ['the timeline', (e, text) => void e.timeline.push({ at: e.timeline[0]!.at, kind: 'note', detail: text }), /found in timeline #\d+ \(note\)/],
];

describe('secrets-redacted and redaction, for every encoding in every kind of place', () => {
  for (const [encoding, encode] of ENCODINGS) {
    it.each(PLACES)(`finds a secret ${encoding} in %s, at every offset, without printing it`, (_place, plant, where) => {
      for (const prefix of ['', 'x', 'xy']) {
        const evidence = cleanEvidence();
        const text = encode(prefix);
        plant(evidence, text);
        const verdict = judged(secretsRedacted, evidence);
        expect(verdict.status, `${encoding} after ${prefix.length} extra characters`).toBe('broken');
        expect(verdict.evidence.join('\n')).toMatch(where);
        for (const spelling of secretSpellings(SECRET)) expect(verdict.text).not.toContain(spelling);
      }
    });

    it(`redacts a secret ${encoding}, at every offset`, () => {
      for (const prefix of ['', 'x', 'xy']) {
        const evidence = cleanEvidence();
        const clean = redact(encode(prefix), [SECRET]);
        evidence.logs[0]!.text += `${clean}\n`;
        expect(judged(secretsRedacted, evidence).status, `${encoding} after ${prefix.length} extra characters: ${clean}`).toBe('held');
      }
    });
  }
});
