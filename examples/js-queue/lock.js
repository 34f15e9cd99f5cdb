// @ts-check
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/*
 * A cross-process lock: a directory made with mkdir (atomic: one process
 * makes it), then an owner file in it with the pid and a token of this take,
 * created exclusively. The holder is whoever's token the owner file holds, and
 * a holder checks that just before it commits (stillHeld), so a lock broken
 * under a live holder (a holder stalled for seconds between its mkdir and its
 * owner file) costs a retry, never a second writer. A lock whose owner
 * process is dead (SIGKILLed while holding it), or which has no owner file and
 * is old, is broken by renaming it away (atomic), and the take is tried
 * again. Waiting backs off on timers, up to a deadline.
 */

/** A lock with no owner file older than this was abandoned between its mkdir and its owner file. */
const ORPHAN_MS = 2_000;

/** The lock could not be taken before its deadline: its holder is alive but never let go. */
export class LockTimeoutError extends Error {
  code = 'JSQ_LOCK_TIMEOUT';
}

/** @param {unknown} error */
const codeOf = (error) => /** @type {NodeJS.ErrnoException} */ (error).code;

/** @param {number} pid */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) !== 'ESRCH'; // EPERM: it exists, but is another user's.
  }
}

/** @param {string} dir @returns {{ pid: number, token: string } | null} */
function ownerOf(dir) {
  try {
    return JSON.parse(readFileSync(`${dir}/owner`, 'utf8'));
  } catch {
    return null; // No owner file yet (or an empty one), or no lock any more.
  }
}

/** The owner of an abandoned lock at `path` (null when it has none), or false when it is held or gone. @param {string} path */
function abandoned(path) {
  const owner = ownerOf(path);
  if (owner) return alive(owner.pid) ? false : owner;
  try {
    return Date.now() - statSync(path).mtimeMs > ORPHAN_MS ? null : false;
  } catch {
    return false;
  }
}

/**
 * Renames an abandoned lock away. Between judging it and renaming it, another
 * process may have broken it and taken it anew: what was renamed is checked,
 * and a lock taken by mistake is put back (failing that, its holder finds out
 * at its commit and writes nothing).
 * @param {string} path @param {{ pid: number, token: string } | null} judged
 */
function breakLock(path, judged) {
  const away = `${path}.broken-${randomUUID()}`;
  try {
    renameSync(path, away);
  } catch {
    return; // Broken (or released) by someone else first.
  }
  if (ownerOf(away)?.token !== judged?.token) {
    try {
      return renameSync(away, path);
    } catch {}
  }
  rmSync(away, { recursive: true, force: true });
}

/** Takes the lock if it is free; true when taken. @param {string} path @param {string} token */
function tryTake(path, token) {
  try {
    mkdirSync(path);
    writeFileSync(`${path}/owner`, JSON.stringify({ pid: process.pid, token }), { flag: 'wx' });
    return true;
  } catch (error) {
    // EEXIST: held (or someone wrote the owner file first); ENOENT: our directory was broken meanwhile.
    if (codeOf(error) === 'EEXIST' || codeOf(error) === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Runs `work` holding the lock at `path`. `work` is synchronous, so the lock
 * is held for one read-modify-write and never across an await; it is given
 * `stillHeld()`, to check just before it commits that nobody broke the lock under it.
 * @template T
 * @param {string} path
 * @param {(stillHeld: () => boolean) => T} work
 * @param {number} [deadlineMs] how long to wait for the lock @default 10_000
 * @returns {Promise<T>}
 */
export async function withLock(path, work, deadlineMs = 10_000) {
  const token = randomUUID();
  const deadline = Date.now() + deadlineMs;
  for (let wait = 1; !tryTake(path, token); wait = Math.min(wait * 2, 50)) {
    const judged = abandoned(path);
    if (judged !== false) {
      breakLock(path, judged);
      continue;
    }
    if (Date.now() > deadline) {
      const owner = ownerOf(path);
      throw new LockTimeoutError(
        `could not take the lock ${path} within ${deadlineMs} ms: ${owner ? `pid ${owner.pid} holds it and is alive` : 'it has no owner yet'}; ` +
          'if that process is stuck, stop it (its lock is then broken at the next try)',
      );
    }
    // Jitter, so waiters that backed off together do not come back together.
    await sleep(wait * (0.5 + Math.random()));
  }
  const stillHeld = () => ownerOf(path)?.token === token;
  try {
    return work(stillHeld);
  } finally {
    // Renamed away before it is removed, so nobody sees a lock without its owner file; and only if it is still ours.
    if (stillHeld()) {
      const gone = `${path}.released-${token}`;
      renameSync(path, gone);
      rmSync(gone, { recursive: true, force: true });
    }
  }
}
