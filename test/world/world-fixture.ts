import { join } from 'node:path';
import { type Clock, ManualClock, systemClock } from '../../src/kernel/clock.js';
import { type WorldCallMeta, WorldClient } from '../../src/world/client.js';
import { WorldLedger } from '../../src/world/ledger.js';
import type { CallLogEntry } from '../../src/world/received-call.js';
import { startWorldServer, type WorldServer } from '../../src/world/server.js';
import { tempRunDir } from '../helpers/run-dir.js';

/** A world served in this process on a fresh ledger, with a client, and one stop() for all of it. */
export interface TestWorld {
  dir: string;
  file: string;
  ledger: WorldLedger;
  server: WorldServer;
  client: WorldClient;
  logged: CallLogEntry[];
  /** Another client of the same world (several callers, separate connections). */
  newClient(timeoutMs?: number): WorldClient;
  stop(): Promise<void>;
}

export async function startTestWorld(options: { timeoutMs?: number; clock?: Clock } = {}): Promise<TestWorld> {
  const run = tempRunDir('world');
  const file = join(run.dir, 'world.db');
  const ledger = WorldLedger.open(file);
  const logged: CallLogEntry[] = [];
  const server = await startWorldServer({ ledger, clock: options.clock ?? systemClock(), onCall: (entry) => logged.push(entry) });
  const clients: WorldClient[] = [];
  const newClient = (timeoutMs = options.timeoutMs ?? 5_000): WorldClient => {
    const client = new WorldClient(server.url, { timeoutMs });
    clients.push(client);
    return client;
  };
  const client = newClient();
  return {
    dir: run.dir,
    file,
    ledger,
    server,
    client,
    logged,
    newClient,
    async stop() {
      for (const c of clients) c.close();
      await server.close();
      ledger.close();
      run.remove();
    },
  };
}

/** The meta of a test call. */
export function meta(job: string | number = 'job-1', step = 'step-1', attempt = 1): WorldCallMeta {
  return { job, step, attempt, worker: 'w-test', pid: process.pid };
}

export { ManualClock };
