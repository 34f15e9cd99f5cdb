// @ts-check
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { withLock } from './lock.js';

/*
 * The queue's one file: every job and its whole history, as JSON. Readers
 * read it without the lock (a change replaces the file by a rename, so a
 * reader sees the file before or after it, never half of it). Every change is
 * a read-modify-write of the whole file under the lock: the new text goes to a
 * temp file inside the lock directory and is renamed over the store, so a
 * process SIGKILLed mid-write leaves the store as it was, and its temp file
 * goes away with its abandoned lock.
 */

/**
 * @typedef {import('queue-drill/adapter').JobSnapshot} Job
 * @typedef {import('queue-drill/adapter').Transition} Transition
 * @typedef {{ version: number, jobs: Job[], history: Transition[] }} State
 *   `version` grows with every change (progress); a job's id is its place in `jobs` plus one, a transition's seq its place in `history` plus one.
 */

/** @param {State} state */
const serialize = (state) => JSON.stringify(state, null, 1);

/** The commit found its lock broken under it: nothing was written, and the change is made again. */
class LockLost extends Error {}

export class StoreFile {
  /** @param {string} file */
  constructor(file) {
    if (!existsSync(file)) throw new Error(`no js-queue store at ${file} (provision makes one)`);
    this.file = file;
    this.lock = `${file}.lock`;
  }

  /** Makes an empty store at `file`, unless one is there. @param {string} file */
  static create(file) {
    if (existsSync(file)) return;
    writeFileSync(`${file}.new`, serialize({ version: 0, jobs: [], history: [] }));
    renameSync(`${file}.new`, file);
  }

  /** @returns {State} */
  read() {
    return JSON.parse(readFileSync(this.file, 'utf8'));
  }

  /**
   * Applies `change` to the store under the lock and returns what it returns.
   * It is written only if it changed something; `change` may run more than
   * once (after a lost lock), so it must depend on the state alone.
   * @template T
   * @param {(state: State) => T} change
   * @returns {Promise<T>}
   */
  async update(change) {
    for (;;) {
      try {
        return await withLock(this.lock, (stillHeld) => {
          const before = readFileSync(this.file, 'utf8');
          const state = /** @type {State} */ (JSON.parse(before));
          const result = change(state);
          if (serialize(state) === before) return result;
          state.version++;
          const temp = `${this.lock}/next-${process.pid}.json`;
          writeFileSync(temp, serialize(state));
          if (!stillHeld()) throw new LockLost();
          renameSync(temp, this.file);
          return result;
        });
      } catch (error) {
        if (!(error instanceof LockLost)) throw error;
      }
    }
  }
}
