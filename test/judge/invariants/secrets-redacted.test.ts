import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../src/judge/evidence.js';
import { maskSecret, secretsRedacted } from '../../../src/judge/invariants/secrets-redacted.js';
import { cleanEvidence, jobIn, judged, richBuilder, SECRET } from './evidence-builder.js';

describe('secrets-redacted', () => {
  it('holds when every planted secret was redacted', () => {
    expect(judged(secretsRedacted, cleanEvidence())).toMatchObject({ status: 'held', evidence: [] });
    expect(judged(secretsRedacted, richBuilder().b.build())).toMatchObject({ status: 'held', evidence: [] });
  });

  it('holds with a note when no secret was planted', () => {
    const evidence = cleanEvidence();
    evidence.secrets = [];
    evidence.logs.push({ name: 'w3.log', text: 'nothing secret' });
    expect(judged(secretsRedacted, evidence)).toMatchObject({ status: 'held', note: 'no secret was planted in this drill: nothing to look for' });
  });

  it('masks a secret as its first characters and length', () => {
    expect(maskSecret(SECRET)).toBe('sk-…(40 chars)');
    expect(maskSecret('hunter22')).toBe('hu…(8 chars)');
    expect(maskSecret('abcd')).toBe('…(4 chars)');
  });

  it('fails for a secret in a log, naming the file and line, with a masked context (never the secret)', () => {
    const evidence = cleanEvidence();
    evidence.logs[1]!.text += `{"event":"plan-retry","error":"401 for key ${SECRET}","again":"${SECRET}"}\n`;
    const verdict = judged(secretsRedacted, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([
      `secret sk-…(40 chars) found in log w2.log line 3: …vent":"plan-retry","error":"401 for key [sk-…(40 chars)]","again":"[sk-…(40 chars)]… (2 times in log w2.log)`,
    ]);
  });

  it.each([
    ['base64', (text: string) => Buffer.from(text).toString('base64')],
    ['base64url', (text: string) => Buffer.from(text).toString('base64url')],
    ['hex', (text: string) => Buffer.from(text).toString('hex')],
  ])('fails for a secret stored %s-encoded inside a payload, at any offset', (_name, encode) => {
    for (const prefix of ['', 'x', 'xy']) {
      const evidence = cleanEvidence();
      const payload = JSON.stringify({ to: `${prefix}user@example.com`, api_key: SECRET });
      evidence.logs[1]!.text += `{"event":"stored","payload":"${encode(payload)}"}\n`;
      const verdict = judged(secretsRedacted, evidence);
      expect(verdict.status, `${_name} after ${prefix.length} extra bytes`).toBe('broken');
      expect(verdict.evidence.join('\n')).toMatch(/secret sk-…\(40 chars\) found in log w2\.log line 3/);
      expect(verdict.evidence.join('\n')).not.toContain(encode(SECRET).slice(4, 20));
    }
  });

  it('fails for a secret split across two lines of a log, naming the lines', () => {
    const evidence = cleanEvidence();
    const lines = evidence.logs[1]!.text.split('\n').length;
    evidence.logs[1]!.text += `{"event":"retry","error":"401 for ${SECRET.slice(0, 20)}\n${SECRET.slice(20)}"}\n`;
    expect(judged(secretsRedacted, evidence).evidence).toEqual([`secret sk-…(40 chars) found split across log w2.log lines ${lines}-${lines + 1}`]);
  });

  it('fails for a secret that holds a newline itself (a PEM key), written raw into a log', () => {
    const evidence = cleanEvidence();
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----';
    evidence.secrets = [pem];
    jobIn(evidence, 1).payload = JSON.stringify({ key: pem });
    evidence.logs[0]!.text += `loaded ${pem}\n`;
    expect(judged(secretsRedacted, evidence).evidence).toEqual([
      expect.stringMatching(/^secret ---…\(78 chars\) found split across log w1\.log lines \d+-\d+$/),
    ]);
  });

  const places: Array<[string, (e: Evidence) => void, RegExp]> = [
    [
      'a last_error',
      (e) => (jobIn(e, 2).lastError = `HTTP 401: bad key ${SECRET}`),
      /found in job 2 \(key [0-9a-f]{8}…\) last_error: HTTP 401: bad key \[sk-…\(40 chars\)\]/,
    ],
    [
      'a review_reason',
      (e) => (jobIn(e, 1).reviewReason = `token ${SECRET} refused`),
      /found in job 1 \(key [0-9a-f]{8}…\) review_reason: token \[sk-…\(40 chars\)\] refused/,
    ],
    ['an event reason', (e) => (e.events[3]!.reason = `retry: ${SECRET}`), /found in job \d+ event #4 reason: retry: \[sk-…/],
    [
      'a tx detail',
      (e) => (e.txLog[1]!.detail = `failed with ${SECRET}`),
      /found in job 1 tx #2 \(write execute success\) detail: failed with \[sk-…/,
    ],
    [
      'an incident',
      (e) => e.incidents.push({ id: 1, job_id: '2', step_id: 'publish', error: `x ${SECRET}`, status: 'manual_recovery_required', at: 'now' }),
      /found in job 2 incident #1 \(publish\) error: x \[sk-…/,
    ],
    [
      'an artefact',
      (e) => (e.artefacts[0]!.text += `\n\n<td>${SECRET}</td>`),
      /found in artefact report\.json line 3: <td>\[sk-…\(40 chars\)\]<\/td>/,
    ],
    ['the timeline', (e) => (e.timeline[0]!.detail = `worker w1 --token ${SECRET}`), /found in timeline #1 \(spawn w1#1\): worker w1 --token \[sk-…/],
  ];

  it.each(places)('fails for a secret in %s, naming where', (_where, leak, line) => {
    const evidence = cleanEvidence();
    leak(evidence);
    const verdict = judged(secretsRedacted, evidence);
    expect(verdict.status).toBe('broken');
    expect(verdict.evidence).toEqual([expect.stringMatching(line)]);
  });

  it('finds a secret as JSON or a URL writes it', () => {
    const evidence = cleanEvidence();
    const quoted = 'pa"ss/word\\42';
    evidence.secrets = [quoted];
    evidence.logs[0]!.text += `${JSON.stringify({ password: quoted })}\n`;
    evidence.artefacts[0]!.text += `\nhttps://example.com/?p=${encodeURIComponent(quoted)}`;
    const verdict = judged(secretsRedacted, evidence);
    expect(verdict.evidence).toEqual([
      'secret pa…(13 chars) found in log w1.log line 3: {"password":"[pa…(13 chars)]"}',
      'secret pa…(13 chars) found in artefact report.json line 2: https://example.com/?p=[pa…(13 chars)]',
    ]);
    expect(verdict.text).not.toContain('ss/word');
  });

  it('masks every secret in a context, including one cut by its edges', () => {
    const evidence = cleanEvidence();
    const other = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    evidence.secrets.push(other);
    evidence.logs[0]!.text += `${other} ${'x'.repeat(20)} ${SECRET}\n`;
    const verdict = judged(secretsRedacted, evidence);
    expect(verdict.text).not.toContain(other.slice(4, 20));
    expect(verdict.evidence).toHaveLength(2);
  });

  it('does not search for secrets too short to tell from text, and says so', () => {
    const evidence = cleanEvidence();
    evidence.secrets = ['ab', SECRET];
    expect(judged(secretsRedacted, evidence)).toMatchObject({
      status: 'held',
      note: '1 planted secret(s) shorter than 4 characters were not searched for',
    });
  });
});
