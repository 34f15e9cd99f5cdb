import type Database from 'better-sqlite3';

/*
 * How the world behaves, kept in its ledger file so that every world process
 * on the file (a restarted one too) behaves the same. One setting so far:
 * whether it fences. A fenced world refuses a call under an older lease's
 * epoch than one it has seen (world-side fencing, as the reference design
 * asks of a service); a plain one applies what it is sent, as most services a
 * real queue's workers call do, so a stale holder's effect reaches the ledger.
 */

/** The settings table of a ledger file. */
export const SETTINGS_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS world_settings (
  name   TEXT PRIMARY KEY,
  value  TEXT NOT NULL
);`;

/** Whether the world in this file fences (the default: a file nobody set up is the reference's world). */
export function fencesOn(db: Database.Database): boolean {
  const row = db.prepare("SELECT value FROM world_settings WHERE name = 'fences'").get() as { value: string } | undefined;
  return row?.value !== 'off';
}

/** Sets whether the world in this file fences; set before a world opens the file. */
export function setFences(db: Database.Database, on: boolean): void {
  db.prepare("INSERT INTO world_settings (name, value) VALUES ('fences', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value").run(
    on ? 'on' : 'off',
  );
}
