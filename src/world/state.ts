import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { withLedgerFile } from './ledger.js';

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
  const files = db.prepare('SELECT path, content, version FROM world_files ORDER BY path').all() as Array<{ path: string; content: string | null; version: number }>;
  const branches = db.prepare('SELECT name, created_by FROM world_branches ORDER BY name').all() as Array<{ name: string; created_by: number }>;
  const articles = db.prepare('SELECT slug, published, publications FROM world_articles ORDER BY slug').all() as Array<{ slug: string; published: number; publications: number }>;
  return {
    files: files.map((f) => ({ path: f.path, exists: f.content !== null, version: f.version, contentSha256: f.content === null ? null : sha256(f.content) })),
    branches: branches.map((b) => ({ name: b.name, createdBy: b.created_by })),
    articles: articles.map((a) => ({ slug: a.slug, published: a.published === 1, publications: a.publications })),
  };
}

/** The simulated systems' state in a ledger file. */
export function readWorldState(file: string): WorldState {
  return withLedgerFile(file, worldState);
}
