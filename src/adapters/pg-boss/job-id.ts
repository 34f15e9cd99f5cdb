import { createHash } from 'node:crypto';

/**
 * The job id for an idempotency key: a UUID (version 5 layout) from the key's
 * SHA-256, the same in every process. pg-boss 10 dedupes on nothing else for a
 * standard queue: its insert is ON CONFLICT DO NOTHING on (name, id), and
 * `singletonKey` alone has no unique index there.
 */
export function jobIdForKey(key: string): string {
  const bytes = createHash('sha256').update(`queue-drill pg-boss job\u0000${key}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
