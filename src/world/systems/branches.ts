import type Database from 'better-sqlite3';

/*
 * The simulated git host's branches, and for every create_branch call whether
 * it created the branch: deleting a branch the call did not create (it
 * existed already) would be a new effect, not a rollback.
 */

/** The git host's tables: the branches, and one row per create call. */
export const BRANCHES_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS world_branches (
  name        TEXT PRIMARY KEY,
  created_by  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_branch_creates (
  effect_seq  INTEGER PRIMARY KEY,
  name        TEXT    NOT NULL,
  created     INTEGER NOT NULL
);`;

/** A branch and the effect that created it. */
export interface BranchRow {
  name: string;
  createdBy: number;
}

/** What one create_branch call did. */
export interface BranchCreate {
  name: string;
  created: boolean;
}

/** Whether a branch exists. */
export function branchExists(db: Database.Database, name: string): boolean {
  return db.prepare('SELECT 1 FROM world_branches WHERE name = ?').get(name) !== undefined;
}

/** Creates a branch, owned by effect `createdBy`. */
export function createBranch(db: Database.Database, name: string, createdBy: number): void {
  db.prepare('INSERT INTO world_branches (name, created_by) VALUES (?, ?)').run(name, createdBy);
}

/** Remembers whether effect `effectSeq` created its branch. */
export function recordBranchCreate(db: Database.Database, effectSeq: number, create: BranchCreate): void {
  db.prepare('INSERT INTO world_branch_creates (effect_seq, name, created) VALUES (?, ?, ?)').run(effectSeq, create.name, create.created ? 1 : 0);
}

/** What create_branch effect `effectSeq` did; every one has a row. */
export function branchCreateOf(db: Database.Database, effectSeq: number): BranchCreate {
  const row = db.prepare('SELECT name, created FROM world_branch_creates WHERE effect_seq = ?').get(effectSeq) as { name: string; created: number };
  return { name: row.name, created: row.created !== 0 };
}

/** Deletes a branch only if effect `createdBy` still owns it; false when it is already gone. */
export function deleteBranchCreatedBy(db: Database.Database, name: string, createdBy: number): boolean {
  return db.prepare('DELETE FROM world_branches WHERE name = ? AND created_by = ?').run(name, createdBy).changes === 1;
}

/** Every branch, by name. */
export function allBranches(db: Database.Database): BranchRow[] {
  const rows = db.prepare('SELECT name, created_by FROM world_branches ORDER BY name').all() as Array<{ name: string; created_by: number }>;
  return rows.map((b) => ({ name: b.name, createdBy: b.created_by }));
}
