import pg from 'pg';
import { CONNECT_TIMEOUT_MS, describeCause } from '../../adapters/pg/connection.js';
import { quoteIdent } from '../../adapters/pg/identifier.js';
import type { WakeSignals } from '../../port/wake-signals.js';
import { wakeChannel } from './sql/wake.js';

/** The LISTEN connection's application_name, telling it apart from the pool's ('queue-drill') in pg_stat_activity. */
export const WAKE_APPLICATION_NAME = 'queue-drill-wake';

/** How long after a LISTEN connection failed or was lost the next is tried: a server that is down is not asked on every poll. */
const REOPEN_AFTER_MS = 1_000;

/** How long close waits for a connection's goodbye before cutting its socket: a partitioned link holds the goodbye until it heals. */
const END_WAIT_MS = 1_000;

/** One line about the signals, for the process's stderr (a drill keeps it beside the process's log). */
export type WakeNote = (line: { event: string } & Record<string, unknown>) => void;

function noteOnStderr(line: { event: string } & Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ at: new Date().toISOString(), source: 'pg-wake-signals', ...line })}\n`);
}

/** Ends a connection politely, and cuts its socket if the server has not seen it go within `ms`; never throws. */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = client.end().then(
    () => 'ended' as const,
    () => 'ended' as const,
  );
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    if ((await Promise.race([ended, late])) === 'late') {
      client.connection.stream.destroy();
      await ended;
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The PostgreSQL store's wake signals: PostgreSQL's LISTEN/NOTIFY in place of
 * SQLite's data_version. The writes that give an idle process something to do
 * notify the queue's channel in their transaction (./sql/wake.ts), so the
 * notification arrives when they commit, and never for one rolled back; one
 * connection per process listens, opened when the count is first read (a
 * producer, which never waits for work, opens none), closed by `close`.
 *
 * While nothing is being heard (the connection not open yet, or lost: a
 * server restart, a reset, a partition's end of it), the count moves on every
 * read, so waitForWork claims again after each poll, as without signals: a
 * missed notification could cost a whole MAX_IDLE_MS, a poll costs one claim.
 * A lost connection is noted on stderr and opened again at most every
 * REOPEN_AFTER_MS; its errors never reach the process.
 */
export class PgWakeSignals implements WakeSignals {
  private count = 0;
  private state: 'idle' | 'opening' | 'listening' | 'polling' | 'closed' = 'idle';
  /** The connection being opened or listening; undefined once lost or closed. */
  private client: pg.Client | undefined;
  private reopenAt = 0;
  /** A loss was noted and no LISTEN has been heard since: the next one that takes is noted too. */
  private lost = false;
  /** Connections being ended (a lost one, a closed one): close waits for them, so no socket outlives the store. */
  private readonly ending = new Set<Promise<void>>();

  constructor(
    private readonly location: { url: string; schema: string },
    private readonly nextDue: () => Promise<number | null>,
    private readonly note: WakeNote = noteOnStderr,
  ) {}

  /** Whether notifications are heard now (false before the first read of the count, and while polling). */
  get listening(): boolean {
    return this.state === 'listening';
  }

  changeCount(): number {
    if (this.state === 'listening') return this.count;
    this.listen();
    return ++this.count;
  }

  /** The next due time from the store; a store that cannot answer now is asked again at the next claim (null: at most MAX_IDLE_MS). */
  async msUntilDue(): Promise<number | null> {
    try {
      return await this.nextDue();
    } catch {
      // The claim before it met the same server, and the claim after it will say what is wrong.
      return null;
    }
  }

  /** Stops listening and ends every connection it opened; a second call waits for nothing more. */
  async close(): Promise<void> {
    this.state = 'closed';
    const client = this.client;
    this.client = undefined;
    if (client) this.end(client);
    await Promise.all(this.ending);
  }

  /** Opens the LISTEN connection, unless one is being opened, the store is closed, or the last failed too recently. */
  private listen(): void {
    if (this.state === 'opening' || this.state === 'closed') return;
    if (this.state === 'polling' && Date.now() < this.reopenAt) return;
    this.state = 'opening';
    const client = new pg.Client({
      connectionString: this.location.url,
      application_name: WAKE_APPLICATION_NAME,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    this.client = client;
    // Without a listener an error on the connection would end the process.
    client.on('error', (error) => this.lose(client, error));
    client.on('end', () => this.lose(client, new Error('the LISTEN connection ended')));
    client.on('notification', () => {
      if (this.client === client) this.count++;
    });
    void this.open(client);
  }

  private async open(client: pg.Client): Promise<void> {
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteIdent(wakeChannel(this.location.schema))}`);
    } catch (error) {
      this.lose(client, error);
      return;
    }
    // Closed, or lost, while it was being opened.
    if (this.client !== client) return;
    this.state = 'listening';
    // A commit before the LISTEN took effect was not heard: one more claim by whoever waits now sees it.
    this.count++;
    if (this.lost) this.note({ event: 'wake-signals-listening', detail: 'LISTEN connection open again: idle processes sleep until notified' });
    this.lost = false;
  }

  /** The connection failed or ended: poll until another listens. Noted once per loss, not for every failed reopening. */
  private lose(client: pg.Client, error: unknown): void {
    // A connection already given up (or ended by close) says nothing more.
    if (this.client !== client) return;
    this.client = undefined;
    this.state = 'polling';
    this.reopenAt = Date.now() + REOPEN_AFTER_MS;
    this.end(client);
    if (this.lost) return;
    this.lost = true;
    this.note({
      event: 'wake-signals-lost',
      error: describeCause(error, this.location.url),
      detail: `idle processes poll until a LISTEN connection is open again (tried every ${REOPEN_AFTER_MS} ms at most)`,
    });
  }

  private end(client: pg.Client): void {
    const ending = endWithin(client, END_WAIT_MS);
    this.ending.add(ending);
    void ending.then(() => this.ending.delete(ending));
  }
}
