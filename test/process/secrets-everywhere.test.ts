import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { execa } from 'execa';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXPLORE_PLANS } from '../../src/explore/plans.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { secretSpellings } from '../../src/kernel/redact.js';
import type { DrillReport } from '../../src/report/schema.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * Secrets of generated shapes (provider keys, JWTs, passwords full of quotes
 * and backslashes, Unicode, a PEM key over several lines) planted in a job's
 * payload and quoted back in an error (as an Authorization header, a query
 * string, JSON, plain text), through a real drill on real processes: none may
 * appear, in any spelling, in any artefact a person or a machine reads: the
 * store (all but the payload the job was given), the world's ledger, every
 * log, the report in every view, and a comparison's output. The input files
 * (the scenarios file, the producer's jobs.json) hold it by necessity and are
 * not searched.
 */

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const alnum = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...ALNUM), minLength: min, maxLength: max });
const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 14, maxLength: 30 });

const secretShape: fc.Arbitrary<string> = fc.oneof(
  alnum(24, 32).map((s) => `sk_live_${s}`),
  alnum(36, 36).map((s) => `ghp_${s}`),
  fc.tuple(alnum(12, 20), alnum(12, 20), alnum(20, 30)).map(([a, b, c]) => `eyJ${a}.eyJ${b}.${c}`),
  // A password: any printable ASCII, quotes, backslashes, &, = and spaces included.
  printable.filter((s) => s.trim().length >= 12 && !/\[REDACTED\]/.test(s)),
  fc.string({ unit: 'grapheme', minLength: 10, maxLength: 16 }).filter((s) => s.length >= 12 && s.trim() === s),
  fc
    .array(alnum(24, 40), { minLength: 2, maxLength: 3 })
    .map((lines) => `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----`),
);

/** How the error quotes the secret back: the contexts a real upstream error puts a credential in. */
const quotedBack = fc.constantFrom(
  (s: string) => `upstream refused the request: Authorization: Token ${s}`,
  (s: string) => `GET https://api.example/v1/charge?api_key=${encodeURIComponent(s)}&amount=1 returned 503`,
  (s: string) => `upstream said ${JSON.stringify({ error: 'denied', password: s })}`,
  (s: string) => `could not use ${s} right now`,
);

function scenarioFile(secret: string, message: string): string {
  return stringify({
    version: 1,
    defaults: { lease_ms: 400, skew_margin_ms: 50, call_timeout_ms: 300, no_progress_ms: 5000, timeout_ms: 20000 },
    plans: { 'write-file': EXPLORE_PLANS['write-file'] },
    scenarios: [
      {
        name: 'planted',
        description: 'A job carries a secret and fails once with an error that quotes it back; nothing may show it.',
        jobs: [{ plan: 'write-file', secret, expect: 'done' }],
        faults: [{ at: 'before_call', action: 'error', kind: 'transient', message, first: 1 }],
      },
    ],
  });
}

/** Every file under `dir`, but the inputs that hold the secret by necessity. */
function artefactsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .filter((path) => !path.endsWith('.yaml') && !path.endsWith('jobs.json') && !/-(wal|shm)$/.test(path));
}

/** The text of every column of every row of a SQLite file, but the payload a job was given. */
function databaseText(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
    return tables
      .flatMap(({ name }) =>
        (db.prepare(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>).flatMap((row) =>
          Object.entries(row)
            .filter(([column]) => !(name === 'agent_jobs' && column === 'payload_json'))
            .map(([, value]) => String(value)),
        ),
      )
      .join('\n');
  } finally {
    db.close();
  }
}

/** Where any spelling of the secret was found (a file, and a line of it, with the secret masked). */
function leaks(dir: string, secret: string): string[] {
  const spellings = secretSpellings(secret).filter((s) => s.length >= 4);
  const found: string[] = [];
  for (const path of artefactsUnder(dir)) {
    const text = path.endsWith('.db') ? databaseText(path) : readFileSync(path, 'utf8');
    for (const spelling of spellings) {
      const at = text.indexOf(spelling);
      if (at >= 0)
        found.push(
          `${relative(dir, path)}: …${text.slice(Math.max(0, at - 40), at)}[the secret]${text.slice(at + spelling.length, at + spelling.length + 40)}…`,
        );
    }
  }
  return found;
}

describe('secrets of generated shapes, planted in a payload and quoted back in an error', () => {
  it('appear in no artefact of a real drill, in any spelling', { timeout: 180_000 }, async () => {
    const run = tempRunDir('secrets-everywhere');
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(secretShape, quotedBack, async (secret, quote) => {
          const dir = join(run.dir, `case-${++n}`);
          const file = join(run.dir, `case-${n}.yaml`);
          writeFileSync(file, scenarioFile(secret, quote(secret)));
          const result = await execa(process.execPath, [CLI_PATH, 'run', file, '--out', dir], { reject: false, env: { CI: 'true' } });
          const [scenario] = (JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as DrillReport).scenarios;
          expect(scenario!.verdict, result.stderr).toBe('pass');
          const judged = scenario!.invariants.find((v) => v.id === 'secrets-redacted')!;
          expect(judged).toMatchObject({ status: 'held' });
          expect(judged.judged, 'the secret was put to the test').toBeGreaterThan(0);
          expect(leaks(dir, secret)).toEqual([]);
        }),
        { numRuns: 6, seed: 2026 },
      );
    } finally {
      run.remove();
    }
  });

  it("appear nowhere in a comparison's output either", { timeout: 120_000 }, async () => {
    const run = tempRunDir('secrets-compare');
    try {
      const secret = 'pa"ss\\w0rd with spaces & =signs= and ünïcode';
      const file = join(run.dir, 'planted.yaml');
      writeFileSync(file, scenarioFile(secret, `upstream refused: Authorization: Token ${secret}`));
      const out = join(run.dir, 'compare');
      const result = await execa(process.execPath, [CLI_PATH, 'compare', file, '--queues', 'sqlite', '--out', out], {
        reject: false,
        env: { CI: 'true' },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(artefactsUnder(out).some((path) => path.endsWith('compare.json'))).toBe(true);
      expect(leaks(out, secret)).toEqual([]);
      expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
    } finally {
      run.remove();
    }
  });
});
