import { resolve, sep } from 'node:path';
import { InputError } from '../../kernel/errors.js';
import { maskUrl } from '../pg/connection.js';
import type { Leftover } from './leftover.js';
import type { OwnerMark } from './owner-mark.js';
import { type OwnerState, ownerState } from './owner-state.js';
import { hostHere, lookAtProcess } from './process-identity.js';

/*
 * `queue-drill clean`'s work: find every schema, database and key prefix
 * named as a drill's on the servers, judge each by its owner mark
 * (./owner-state.ts), and remove those whose drill is gone (and, when asked,
 * those kept by --keep). Nothing is removed on a name alone: an unmarked one,
 * or one of a drill still running, is listed and left. Each server is looked
 * at on its own: one that does not answer is said so, and the other is still
 * swept.
 */

/** What to sweep, and how. */
export interface SweepOptions {
  pgUrl: string;
  redisUrl: string;
  /** Say what would be removed, remove nothing. */
  dryRun: boolean;
  /** Only what drills whose run directory lies under this folder left (unmarked ones are then not listed). @default every drill */
  under?: string;
  /** Remove what --keep kept, too, once its drill is over. @default false */
  includeKept?: boolean;
}

/** What the sweep did with one leftover. */
export type SweepAction = 'removed' | 'would remove' | 'left' | 'failed';

/** One leftover as the sweep judged and handled it. */
export interface SweptLeftover {
  kind: Leftover['kind'];
  name: string;
  server: string;
  /** The queue it was made for, as its mark says; null when unmarked. */
  queue: string | null;
  state: OwnerState;
  why: string;
  action: SweepAction;
  /** Why a removal failed. */
  error?: string;
  size?: string;
  owner: OwnerMark | null;
}

/** One server as the sweep found it. */
export interface SweptServer {
  server: 'PostgreSQL' | 'Redis';
  where: string;
  /** Null when it was looked at; else why not: unreachable (`input`: a server that is not there) or failed (`harness`). */
  error: { kind: 'input' | 'harness'; message: string } | null;
}

export interface SweepResult {
  dryRun: boolean;
  under: string | null;
  servers: SweptServer[];
  leftovers: SweptLeftover[];
}

/** Where the drills' leftovers are listed, server by server (the queues' own files, loaded only when swept). */
const SOURCES: ReadonlyArray<{
  server: SweptServer['server'];
  /** The server's URL with its password hidden. */
  where: (o: SweepOptions) => Promise<string>;
  list: (o: SweepOptions) => Promise<Leftover[]>;
}> = [
  {
    server: 'PostgreSQL',
    where: async (o) => maskUrl(o.pgUrl),
    list: async (o) => {
      const { listDrillSchemas } = await import('../pg/leftovers.js');
      const { SCHEMA_PREFIX } = await import('../pg/provision.js');
      const { PG_BOSS_SCHEMA_PREFIX } = await import('../pg-boss/schema-name.js');
      const { listDrillDatabases } = await import('../graphile-worker/leftovers.js');
      return [...(await listDrillSchemas(o.pgUrl, [SCHEMA_PREFIX, PG_BOSS_SCHEMA_PREFIX])), ...(await listDrillDatabases(o.pgUrl))];
    },
  },
  {
    server: 'Redis',
    where: async (o) => (await import('../bullmq/redis.js')).maskRedisUrl(o.redisUrl),
    list: async (o) => (await import('../bullmq/leftovers.js')).listDrillPrefixes(o.redisUrl),
  },
];

/** Whether `runDir` lies under `folder` (both absolute). */
function lies(runDir: string, folder: string): boolean {
  return runDir === folder || runDir.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/** Judges one leftover and removes it when its drill is gone (unless a dry run). */
async function sweepOne(leftover: Leftover, options: SweepOptions, judge: (l: Leftover) => ReturnType<typeof ownerState>): Promise<SweptLeftover> {
  const { state, why } = judge(leftover);
  const take = state === 'gone' || (state === 'kept' && options.includeKept === true);
  const swept: SweptLeftover = {
    kind: leftover.kind,
    name: leftover.name,
    server: leftover.server,
    queue: leftover.mark?.queue ?? null,
    state,
    why,
    action: !take ? 'left' : options.dryRun ? 'would remove' : 'removed',
    ...(leftover.size === undefined ? {} : { size: leftover.size }),
    owner: leftover.mark,
  };
  if (swept.action !== 'removed') return swept;
  try {
    await leftover.remove();
    return swept;
  } catch (error) {
    return { ...swept, action: 'failed', error: error instanceof Error ? error.message : String(error) };
  }
}

/** Sweeps every server: what each holds of the drills, judged, and what was removed. */
export async function sweepLeftovers(options: SweepOptions): Promise<SweepResult> {
  const under = options.under === undefined ? null : resolve(options.under);
  const here = hostHere();
  const judge = (l: Leftover) => ownerState(l.mark, { here, lookAt: lookAtProcess, leaseLive: l.leaseLive });
  const servers: SweptServer[] = [];
  const leftovers: SweptLeftover[] = [];
  for (const source of SOURCES) {
    const where = await source.where(options);
    let found: Leftover[];
    try {
      found = await source.list(options);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      servers.push({ server: source.server, where, error: { kind: error instanceof InputError ? 'input' : 'harness', message } });
      continue;
    }
    servers.push({ server: source.server, where, error: null });
    const mine = under === null ? found : found.filter((l) => l.mark !== null && lies(l.mark.runDir, under));
    for (const leftover of mine) leftovers.push(await sweepOne(leftover, options, judge));
  }
  return { dryRun: options.dryRun, under, servers, leftovers };
}
