import type Database from 'better-sqlite3';

/*
 * The simulated file store: each path's current content and version, and for
 * every write the content it replaced, because restoring a file (the
 * compensation of a write) needs the content it had before.
 */

/** The file store's tables: the files, and one row per write with what it replaced. */
export const FILES_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS world_files (
  path     TEXT PRIMARY KEY,
  content  TEXT,
  version  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_file_writes (
  effect_seq        INTEGER PRIMARY KEY,
  path              TEXT    NOT NULL,
  previous_content  TEXT,
  version           INTEGER NOT NULL
);`;

/** A file as stored; content null means it does not exist (restored to before its first write). */
export interface FileRow {
  path: string;
  content: string | null;
  version: number;
}

/** What one write replaced: the compensation of that write puts it back. */
export interface FileWrite {
  path: string;
  previousContent: string | null;
  version: number;
}

/** A file's content and version, or undefined if it was never written. */
export function fileAt(db: Database.Database, path: string): { content: string | null; version: number } | undefined {
  return db.prepare('SELECT content, version FROM world_files WHERE path = ?').get(path) as { content: string | null; version: number } | undefined;
}

/** Writes a file (creating it), at the given version. */
export function writeFile(db: Database.Database, path: string, content: string, version: number): void {
  db.prepare(
    'INSERT INTO world_files (path, content, version) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET content = excluded.content, version = excluded.version',
  ).run(path, content, version);
}

/** Puts back an existing file's earlier content (null: it did not exist), as a new version. */
export function restoreFile(db: Database.Database, path: string, content: string | null, version: number): void {
  db.prepare('UPDATE world_files SET content = ?, version = ? WHERE path = ?').run(content, version, path);
}

/** Remembers what effect `effectSeq`'s write replaced. */
export function recordFileWrite(db: Database.Database, effectSeq: number, write: FileWrite): void {
  db.prepare('INSERT INTO world_file_writes (effect_seq, path, previous_content, version) VALUES (?, ?, ?, ?)').run(
    effectSeq,
    write.path,
    write.previousContent,
    write.version,
  );
}

/** What effect `effectSeq`'s write replaced; every write_file effect has one. */
export function fileWriteOf(db: Database.Database, effectSeq: number): FileWrite {
  const row = db.prepare('SELECT path, previous_content, version FROM world_file_writes WHERE effect_seq = ?').get(effectSeq) as {
    path: string;
    previous_content: string | null;
    version: number;
  };
  return { path: row.path, previousContent: row.previous_content, version: row.version };
}

/** Every file, by path. */
export function allFiles(db: Database.Database): FileRow[] {
  return db.prepare('SELECT path, content, version FROM world_files ORDER BY path').all() as FileRow[];
}
