import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { openSqliteFile } from '../../src/kernel/sqlite-file.js';
import { tempRunDir } from '../helpers/run-dir.js';

const SCHEMA =
  'CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL); CREATE INDEX IF NOT EXISTS notes_text ON notes (text);';
const SQLITE_FILE_JS = join(CLI_PATH, '..', '..', 'kernel', 'sqlite-file.js');

describe('openSqliteFile', () => {
  let cleanup: Array<() => void> = [];
  afterEach(() => {
    for (const step of cleanup.reverse()) step();
    cleanup = [];
  });
  const newFile = () => {
    const run = tempRunDir('sqlite-file');
    cleanup.push(run.remove);
    return join(run.dir, 'store.db');
  };

  it('makes the tables in WAL mode, and a second open keeps what the first wrote', () => {
    const file = newFile();
    const first = openSqliteFile(file, { schemaSql: SCHEMA, synchronous: 'FULL' });
    first.prepare('INSERT INTO notes (text) VALUES (?)').run('kept');
    expect(first.pragma('journal_mode', { simple: true })).toBe('wal');
    first.close();
    const second = openSqliteFile(file, { schemaSql: SCHEMA, synchronous: 'NORMAL', foreignKeys: true });
    cleanup.push(() => second.close());
    expect(second.prepare('SELECT text FROM notes').pluck().all()).toEqual(['kept']);
    expect(second.pragma('foreign_keys', { simple: true })).toBe(1);
  });

  it('throws the busy once its budget is spent, not swallowing it', () => {
    const file = newFile();
    const holder = new Database(file); // rollback journal: an exclusive transaction keeps every other connection out
    cleanup.push(() => holder.close());
    holder.exec(SCHEMA);
    holder.exec('BEGIN EXCLUSIVE');
    cleanup.push(() => holder.exec('ROLLBACK'));
    expect(() => openSqliteFile(file, { schemaSql: SCHEMA, synchronous: 'FULL', busyTimeoutMs: 50 })).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^SQLITE_BUSY/) }),
    );
  });

  // Three world processes starting on one new ledger met SQLITE_BUSY from `journal_mode = WAL` in CI, busy_timeout
  // notwithstanding. The window is narrow (this machine rarely shows it when quiet), so several rounds of several
  // processes released at one instant on a new file each.
  it('several processes opening one new file at the same instant all open it', async () => {
    const PROCESSES = 4;
    const ROUNDS = 5;
    const opener = [
      `import { openSqliteFile } from ${JSON.stringify(pathToFileURL(SQLITE_FILE_JS).href)};`,
      'const [file, at] = process.argv.slice(-2);',
      'while (Date.now() < Number(at)) {}', // released together: a spin, so no timer's lateness spreads them out
      `const db = openSqliteFile(file, { schemaSql: ${JSON.stringify(SCHEMA)}, synchronous: 'FULL' });`,
      "db.prepare('INSERT INTO notes (text) VALUES (?)').run(String(process.pid));",
    ].join('\n');
    for (let round = 0; round < ROUNDS; round++) {
      const file = newFile();
      const at = Date.now() + 400;
      const ends = await Promise.all(
        Array.from({ length: PROCESSES }, () => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', opener, file, String(at)], { stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          return new Promise<{ code: number | null; stderr: string }>((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
        }),
      );
      for (const end of ends) expect(end, `${SQLITE_FILE_JS} (npm run build first)`).toEqual({ code: 0, stderr: '' });
      const check = new Database(file, { readonly: true });
      expect(check.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(PROCESSES);
      check.close();
    }
  });
});
