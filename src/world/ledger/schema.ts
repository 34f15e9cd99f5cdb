import { ARTICLES_SCHEMA_SQL } from '../systems/articles.js';
import { BRANCHES_SCHEMA_SQL } from '../systems/branches.js';
import { FILES_SCHEMA_SQL } from '../systems/files.js';
import { CALLS_SCHEMA_SQL } from './calls-table.js';
import { DELIVERIES_SCHEMA_SQL } from './deliveries-table.js';
import { EFFECTS_SCHEMA_SQL } from './effects-table.js';
import { FENCES_SCHEMA_SQL } from './fences-table.js';
import { SETTINGS_SCHEMA_SQL } from './settings-table.js';

/*
 * One file holds the evidence (effects, calls, fences), the armed faults (so
 * a restarted world keeps them and their fired counts survive) and the
 * simulated systems' state, because one SQLite transaction must cover an
 * effect's row and the state it changed: they never disagree. Each concept
 * owns its fragment; this joins them in the order the file always had.
 */

/** The faults table; faults.ts reads and writes it (its definition stays here until faults.ts takes it). */
export const FAULTS_SCHEMA_SQL = `CREATE TABLE IF NOT EXISTS faults (
  id          INTEGER PRIMARY KEY,
  spec_json   TEXT    NOT NULL,
  times       INTEGER NOT NULL,
  fired       INTEGER NOT NULL DEFAULT 0,
  armed_at    TEXT    NOT NULL,
  cleared_at  TEXT
);`;

/** The simulated systems' tables: what compensation needs to undo a file write, a branch, a publication. */
export const SYSTEMS_SCHEMA_SQL = [FILES_SCHEMA_SQL, BRANCHES_SCHEMA_SQL, ARTICLES_SCHEMA_SQL].join('\n');

const TABLES = [
  EFFECTS_SCHEMA_SQL,
  CALLS_SCHEMA_SQL,
  FENCES_SCHEMA_SQL,
  FAULTS_SCHEMA_SQL,
  SYSTEMS_SCHEMA_SQL,
  DELIVERIES_SCHEMA_SQL,
  SETTINGS_SCHEMA_SQL,
];

/** The tables of a ledger file; created if missing, so any process may open it first. */
export const LEDGER_SCHEMA_SQL = `\n${TABLES.join('\n\n')}\n`;
