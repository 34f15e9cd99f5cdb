import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathForUser, printedCommand } from '../kernel/printed-command.js';
import type { ServerSettings } from './adapter.js';

/*
 * What a person does next with a job they are shown (approve the step it
 * waits on, read its whole life), as complete commands: the store and the
 * queue they were shown it from, so the command works pasted as printed.
 */

/** How a person reaches one queue from the command line: `--queue`, `--store` and the servers they gave. */
export interface QueueAddress {
  /** The implementation's name as given (`--queue`); the default one is left out of a command. */
  queue: string;
  /** The locator (`--store`): a file path relative to this process's cwd, or a name on a server. */
  store: string;
  storeKind: 'file' | 'name';
  /** Servers given on the command line; the environment supplies the rest, as it did here. */
  servers?: ServerSettings;
}

/** The queue `--queue` means when it is not given. */
const DEFAULT_QUEUE = 'reference';

/** The file name of the world's ledger in a drill's run directory, beside the queue's store file. */
export const LEDGER_FILE = 'ledger.db';

/** A server URL, on a command line only when it carries no password (else the person gives it, as they did here, from QD_PG_URL...). */
function serverFlag(flag: string, url: string | undefined): string[] {
  if (url === undefined) return [];
  try {
    if (new URL(url).password !== '') return [];
  } catch {
    return [];
  }
  return [flag, url];
}

/** The flags that name the queue: --store (as the person types it), --queue unless it is the default, and the servers. */
function addressFlags(address: QueueAddress): string[] {
  return [
    '--store',
    address.storeKind === 'file' ? pathForUser(address.store) : address.store,
    ...(address.queue === DEFAULT_QUEUE ? [] : ['--queue', address.queue]),
    ...serverFlag('--pg-url', address.servers?.pgUrl),
    ...serverFlag('--redis-url', address.servers?.redisUrl),
    ...serverFlag('--amqp-url', address.servers?.amqpUrl),
    ...serverFlag('--nats-url', address.servers?.natsUrl),
  ];
}

/** The command that approves the step job `jobId` waits on (who approves: `--by`, else $USER). */
export function approveCommandFor(address: QueueAddress, jobId: string): string {
  return printedCommand(['approve', jobId, ...addressFlags(address)]);
}

/** The command that prints job `jobId`'s life, with the world's effects when the ledger is known. */
export function historyCommandFor(address: QueueAddress, jobId: string, ledger?: string | null): string {
  return printedCommand(['history', jobId, ...addressFlags(address), ...(ledger ? ['--ledger', pathForUser(ledger)] : [])]);
}

/** The world's ledger of the drill a store file belongs to (ledger.db beside it in the run directory), or null. */
export function ledgerBeside(address: QueueAddress): string | null {
  if (address.storeKind !== 'file') return null;
  const ledger = join(dirname(address.store), LEDGER_FILE);
  return existsSync(ledger) ? ledger : null;
}
