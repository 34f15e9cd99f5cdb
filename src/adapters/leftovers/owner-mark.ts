import { resolve } from 'node:path';
import { hostHere, processStart } from './process-identity.js';

/*
 * The owner mark: what a drill's provision writes beside what it makes on a
 * server (a schema's or a database's comment, a key under a BullMQ prefix),
 * so that `queue-drill clean` can tell what a dead drill left from what a
 * running drill uses, and both from anything queue-drill did not make. It
 * names the harness process that provisioned (its host, the host's boot, its
 * pid and the pid's start time: see ./process-identity.ts) and the drill's
 * run directory. A drill on another host cannot be looked up by pid: there
 * the lease decides (./lease.ts), renewed while the drill runs.
 */

/** What a mark says it is: how a mark of queue-drill's is told from a comment someone else wrote. */
export const MARK_TOOL = 'queue-drill';

/** Who made a drill's queue on a server, and whether it is to stay. */
export interface OwnerMark {
  tool: typeof MARK_TOOL;
  /** The queue implementation it was made for (postgres, pg-boss, graphile-worker, bullmq). */
  queue: string;
  host: string;
  bootId: string | null;
  /** The harness process that provisioned it. */
  pid: number;
  /** That process's start time (clock ticks since boot), null where the host does not say: a reused pid is not the owner. */
  pidStart: string | null;
  /** The drill's run directory (absolute): `clean --under DIR` takes only what drills under DIR left. */
  runDir: string;
  /** When it was made, by the harness's clock: for people, never for deciding. */
  madeAt: string;
  /** The drill ended and --keep asked for its queue to stay: clean leaves it unless told to take kept ones too. */
  kept?: true;
}

/** The mark of what this process provisions now for a drill of `queue` in `runDir`. */
export function ownerMarkHere(queue: string, runDir: string): OwnerMark {
  const { host, bootId } = hostHere();
  return {
    tool: MARK_TOOL,
    queue,
    host,
    bootId,
    pid: process.pid,
    pidStart: processStart(process.pid),
    runDir: resolve(runDir),
    madeAt: new Date().toISOString(),
  };
}

/** The same mark, saying the drill is over and its queue was kept (--keep). */
export function keptMark(mark: OwnerMark): OwnerMark {
  return { ...mark, kept: true };
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isStringOrNull = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** A mark read back (a comment, a key's value), or null for anything that is not one of queue-drill's (no text, not JSON, another shape). */
export function parseOwnerMark(text: string | null | undefined): OwnerMark | null {
  if (text === null || text === undefined) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const shaped =
    v.tool === MARK_TOOL &&
    isString(v.queue) &&
    isString(v.host) &&
    isStringOrNull(v.bootId) &&
    Number.isSafeInteger(v.pid) &&
    (v.pid as number) > 0 &&
    isStringOrNull(v.pidStart) &&
    isString(v.runDir) &&
    isString(v.madeAt) &&
    (v.kept === undefined || v.kept === true);
  if (!shaped) return null;
  const mark: OwnerMark = {
    tool: MARK_TOOL,
    queue: v.queue as string,
    host: v.host as string,
    bootId: v.bootId as string | null,
    pid: v.pid as number,
    pidStart: v.pidStart as string | null,
    runDir: v.runDir as string,
    madeAt: v.madeAt as string,
  };
  return v.kept === true ? keptMark(mark) : mark;
}
