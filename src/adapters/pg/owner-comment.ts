import { LEASE_MS, type LeaseRenewal, renewWhileRunning } from '../leftovers/lease.js';
import { keptMark, type OwnerMark } from '../leftovers/owner-mark.js';
import { withPgClient } from './connection.js';
import type { Queryable } from './queryable.js';

/*
 * A drill's owner mark on PostgreSQL (../leftovers/owner-mark.ts): the
 * comment on its schema (postgres, pg-boss) or its database
 * (graphile-worker), as JSON, with the lease's last renewal by the server's
 * clock in it. A comment, so the mark needs no table of queue-drill's in
 * someone's queue, and clean reads every schema's and database's in one
 * query.
 */

/** What a comment is put on: a schema (in the URL's database) or a whole database. */
export interface CommentTarget {
  kind: 'SCHEMA' | 'DATABASE';
  name: string;
}

/** The field of the comment holding the lease's last renewal, in ms since the epoch by the server's clock. */
const RENEWED_FIELD = 'renewedAtMs';

/** The server's clock now, in ms since the epoch: how a renewal is stamped, and what clean measures it against. */
export const SERVER_NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/** Comments `target` with `mark`, stamped with the server's time now (the lease renewed). In the caller's transaction, if any. */
export async function writeOwnerComment(db: Queryable, target: CommentTarget, mark: OwnerMark): Promise<void> {
  // COMMENT takes no parameters: the server quotes the name and the text itself (format's %I and %L).
  const built = await db.query<{ statement: string }>(
    `SELECT format('COMMENT ON ${target.kind} %I IS %L', $1::text,
       ($2::jsonb || jsonb_build_object('${RENEWED_FIELD}', ${SERVER_NOW_MS}))::text) AS statement`,
    [target.name, JSON.stringify(mark)],
  );
  await db.query(built.rows[0]!.statement);
}

/** Whether the lease in a comment is live at `nowMs` (the server's clock); null when it holds no renewal. */
export function leaseLiveIn(comment: string | null, nowMs: number): boolean | null {
  if (comment === null) return null;
  try {
    const renewed = (JSON.parse(comment) as Record<string, unknown>)[RENEWED_FIELD];
    return typeof renewed === 'number' ? nowMs - renewed <= LEASE_MS : null;
  } catch {
    return null;
  }
}

/**
 * A drill's mark kept current while it runs: the comment renewed every
 * LEASE_RENEW_MS; `end` stops renewing, and with `keep` marks it kept
 * (clean then leaves it: a person asked for it).
 */
export function holdOwnerComment(url: string, target: CommentTarget, mark: OwnerMark): { end(options: { keep: boolean }): Promise<void> } {
  const renewal: LeaseRenewal = renewWhileRunning(() => withPgClient(url, (client) => writeOwnerComment(client, target, mark)));
  return {
    async end({ keep }) {
      await renewal.stop();
      if (keep) await withPgClient(url, (client) => writeOwnerComment(client, target, keptMark(mark)));
    },
  };
}
