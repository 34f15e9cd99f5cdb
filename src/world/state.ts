import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { withLedgerFile } from './ledger/read-file.js';
import { allArticles } from './systems/articles.js';
import { allBranches } from './systems/branches.js';
import { allFiles } from './systems/files.js';

/*
 * The state of the simulated systems after a drill: which files hold what
 * version, which branches and articles exist. Saga checks read it ("after the
 * compensation the branch is gone and the file has its old content"). File
 * contents are given as digests: a report must not repeat what a job wrote.
 */

/** The simulated systems' state, as a harness checks it. */
export interface WorldState {
  files: Array<{ path: string; exists: boolean; version: number; contentSha256: string | null }>;
  branches: Array<{ name: string; createdBy: number }>;
  articles: Array<{ slug: string; published: boolean; publications: number }>;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** The state held by an open ledger database. */
export function worldState(db: Database.Database): WorldState {
  return {
    files: allFiles(db).map((f) => ({
      path: f.path,
      exists: f.content !== null,
      version: f.version,
      contentSha256: f.content === null ? null : sha256(f.content),
    })),
    branches: allBranches(db),
    articles: allArticles(db),
  };
}

/** The simulated systems' state in a ledger file. */
export function readWorldState(file: string): WorldState {
  return withLedgerFile(file, worldState);
}
