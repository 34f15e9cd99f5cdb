import { type QueueOptions, SqliteQueue } from './sqlite-queue.js';
import { openStore } from './store.js';

/** The reference queue on a store file, as every SQLite queue `--queue` names opens it (a saga-rule variant runs it unchanged). */
export const openReference = (file: string, options: QueueOptions): SqliteQueue => new SqliteQueue(openStore(file), options);
