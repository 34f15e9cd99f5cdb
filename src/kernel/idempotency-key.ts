// The idempotency key of a job, identical byte for byte to this Python reference:
//
//   def make_idempotency_key(repo, branch, action, payload, workflow_version):
//       canonical = json.dumps(
//           {"repo": repo.strip().lower(), "branch": branch.strip(), "action": action,
//            "payload": payload, "workflow_version": workflow_version},
//           ensure_ascii=False, sort_keys=True, separators=(",", ":"))
//       return sha256(canonical.encode("utf-8")).hexdigest()
//
// Keys are shared with Python producers, so any drift (a trim or lowercase rule, a float format)
// would let the same job be enqueued twice.

import { createHash } from 'node:crypto';
import { canonicalJsonUtf8 } from './canonical-json.js';
import { type PyJson, parsePythonJson } from './python-json.js';

/** Inputs of make_idempotency_key; payload is a tree as json.loads returns it (see python-json.ts). */
export interface IdempotencyKeyInput {
  repo: string;
  branch: string;
  action: string;
  payload: PyJson;
  workflowVersion: string;
}

/** Inputs of make_idempotency_key with the payload given as JSON text, read as Python's json.loads reads it. */
export interface IdempotencyKeyTextInput {
  repo: string;
  branch: string;
  action: string;
  payloadJson: string;
  workflowVersion: string;
}

/** SHA-256 hex digest of the canonical job description, equal to Python's make_idempotency_key. */
export function makeIdempotencyKey(input: IdempotencyKeyInput): string {
  const canonical = new Map<string, PyJson>([
    ['repo', pythonLower(pythonStrip(input.repo))],
    ['branch', pythonStrip(input.branch)],
    ['action', input.action],
    ['payload', input.payload],
    ['workflow_version', input.workflowVersion],
  ]);
  return createHash('sha256').update(canonicalJsonUtf8(canonical)).digest('hex');
}

/** makeIdempotencyKey with the payload parsed from JSON text (throws PythonJsonError where json.loads raises). */
export function makeIdempotencyKeyFromJsonText(input: IdempotencyKeyTextInput): string {
  const { payloadJson, ...rest } = input;
  return makeIdempotencyKey({ ...rest, payload: parsePythonJson(payloadJson) });
}

// Python's str.isspace() set (python3 -c "[c for c in map(chr, range(0x110000)) if c.isspace()]").
// Unlike String.prototype.trim it includes U+001C..U+001F and U+0085, and excludes U+FEFF.
const PY_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
  0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** Python's str.strip() with no arguments. */
export function pythonStrip(s: string): string {
  // All whitespace is in the BMP, so stepping by UTF-16 code unit is safe.
  let start = 0;
  let end = s.length;
  while (start < end && PY_WHITESPACE.has(s.charCodeAt(start))) start++;
  while (end > start && PY_WHITESPACE.has(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

// Python 3.11 uses Unicode 14.0 case data; Node's ICU is newer (Unicode 17 on Node 20.20). These
// code points were unassigned in 14.0, so Python gives them no lowercase mapping and treats them
// as neither cased nor case-ignorable. Found by comparing every code point with python3; the
// test "agrees with python3 on every code point" catches any new drift after a Node upgrade.
const CASELESS_IN_PYTHON: ReadonlyArray<readonly [number, number]> = [
  [0x897, 0x897],
  [0xece, 0xece],
  [0x1acf, 0x1add],
  [0x1ae0, 0x1aeb],
  [0x1c89, 0x1c8a],
  [0xa7cb, 0xa7cf],
  [0xa7d2, 0xa7d2],
  [0xa7d4, 0xa7d4],
  [0xa7da, 0xa7dc],
  [0xa7f1, 0xa7f1],
  [0x10d4e, 0x10d4e],
  [0x10d50, 0x10d65],
  [0x10d69, 0x10d6d],
  [0x10d6f, 0x10d85],
  [0x10ec5, 0x10ec5],
  [0x10efa, 0x10eff],
  [0x11241, 0x11241],
  [0x113bb, 0x113c0],
  [0x113ce, 0x113ce],
  [0x113d0, 0x113d0],
  [0x113d2, 0x113d2],
  [0x113e1, 0x113e2],
  [0x11b60, 0x11b60],
  [0x11b62, 0x11b64],
  [0x11b66, 0x11b66],
  [0x11dd9, 0x11dd9],
  [0x11f00, 0x11f01],
  [0x11f36, 0x11f3a],
  [0x11f40, 0x11f40],
  [0x11f42, 0x11f42],
  [0x11f5a, 0x11f5a],
  [0x13439, 0x13440],
  [0x13447, 0x13455],
  [0x1611e, 0x16129],
  [0x1612d, 0x1612f],
  [0x16d40, 0x16d42],
  [0x16d6b, 0x16d6c],
  [0x16ea0, 0x16eb8],
  [0x16ebb, 0x16ed3],
  [0x16ff2, 0x16ff3],
  [0x1df25, 0x1df2a],
  [0x1e030, 0x1e06d],
  [0x1e08f, 0x1e08f],
  [0x1e4eb, 0x1e4ef],
  [0x1e5ee, 0x1e5ef],
  [0x1e6e3, 0x1e6e3],
  [0x1e6e6, 0x1e6e6],
  [0x1e6ee, 0x1e6ef],
  [0x1e6f5, 0x1e6f5],
  [0x1e6ff, 0x1e6ff],
];
// Properties that changed after Unicode 14.0: U+0295 was a cased lowercase letter (now Lo),
// U+1171E was a case-ignorable nonspacing mark (now a spacing mark).
const CASED_IN_PYTHON = new Set([0x295]);
const CASE_IGNORABLE_IN_PYTHON = new Set([0x1171e]);

function isCaselessInPython(cp: number): boolean {
  return CASELESS_IN_PYTHON.some(([first, last]) => cp >= first && cp <= last);
}

const CASE_IGNORABLE = /^\p{Case_Ignorable}$/u;
const CASED = /^\p{Cased}$/u;

function isCaseIgnorable(cp: number): boolean {
  if (CASE_IGNORABLE_IN_PYTHON.has(cp)) return true;
  if (CASED_IN_PYTHON.has(cp) || isCaselessInPython(cp)) return false;
  return CASE_IGNORABLE.test(String.fromCodePoint(cp));
}

function isCased(cp: number): boolean {
  if (CASED_IN_PYTHON.has(cp)) return true;
  if (CASE_IGNORABLE_IN_PYTHON.has(cp) || isCaselessInPython(cp)) return false;
  return CASED.test(String.fromCodePoint(cp));
}

const CAPITAL_SIGMA = 0x3a3;

/** Python's str.lower(): full Unicode 14.0 lowercase mapping, with Python's Final_Sigma rule for 'Σ'. */
export function pythonLower(s: string): string {
  if (/^[\x00-\x7f]*$/.test(s)) return s.toLowerCase(); // ASCII: identical everywhere, and the common case
  // Map code point by code point: JS's whole-string toLowerCase decides final sigma with its own,
  // newer Unicode tables, so sigma is handled below exactly as CPython does it.
  const cps = Array.from(s, (c) => c.codePointAt(0) ?? 0);
  let out = '';
  cps.forEach((cp, i) => {
    if (cp === CAPITAL_SIGMA) out += isFinalSigma(cps, i) ? '\u03c2' : '\u03c3';
    else if (isCaselessInPython(cp)) out += String.fromCodePoint(cp);
    else out += String.fromCodePoint(cp).toLowerCase();
  });
  return out;
}

// CPython's handle_capital_sigma: 'Σ' becomes final 'ς' when a cased letter precedes it and none
// follows it, skipping case-ignorable characters in both directions.
function isFinalSigma(cps: readonly number[], i: number): boolean {
  let j = i - 1;
  while (j >= 0 && isCaseIgnorable(cps[j] ?? 0)) j--;
  if (j < 0 || !isCased(cps[j] ?? 0)) return false;
  let k = i + 1;
  while (k < cps.length && isCaseIgnorable(cps[k] ?? 0)) k++;
  return k === cps.length || !isCased(cps[k] ?? 0);
}
