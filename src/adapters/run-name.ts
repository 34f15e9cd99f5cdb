import { createHash } from 'node:crypto';

/**
 * A name for one drill's things on a server (a key prefix, a queue name):
 * `lead`, the run id made readable (lower case, dashes, at most 40
 * characters) and a hash of the whole id, so two ids that read the same once
 * cleaned still differ.
 */
export function runIdName(runId: string, lead: string): string {
  const hash = createHash('sha256').update(runId).digest('hex').slice(0, 12);
  const readable = runId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return readable === '' ? `${lead}${hash}` : `${lead}${readable}-${hash}`;
}
