import { createHash } from 'node:crypto';
import { canonicalJsonUtf8 } from '../kernel/canonical-json.js';
import { fromJsValue } from '../kernel/python-json.js';

/*
 * The ledger stores a digest of a call's arguments, never the arguments: they
 * may carry secrets. The digest still tells a replay (same arguments) from a
 * key reused for another request, and a Python harness computes the same one.
 */

/**
 * SHA-256 hex of the canonical JSON of a call's arguments, equal to Python's
 * sha256(json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()).
 * Throws (CanonicalJsonError, PythonJsonError) where Python would: a lone surrogate, too deep a tree.
 */
export function argsDigest(args: unknown): string {
  return createHash('sha256')
    .update(canonicalJsonUtf8(fromJsValue(args)))
    .digest('hex');
}
