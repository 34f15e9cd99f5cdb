import { once } from 'node:events';
import { type Clock, utc } from '../kernel/clock.js';
import { jsonLogger } from '../kernel/log.js';
import { withReleasers } from '../kernel/releasers.js';
import { WorldLedger } from './ledger.js';
import { startWorldServer } from './server.js';

/*
 * The world as a process: open the ledger, listen, announce the port on one
 * JSON line (the parent reads it from there, so port 0 needs no guessing),
 * log one line per call, and close cleanly when told to stop. A SIGKILL needs
 * no cleanup: every answered effect is already committed.
 */

/** A world process's ledger, port, clock and stop signal. */
export interface RunWorldOptions {
  /** The ledger file (created if missing). */
  ledger: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  clock: Clock;
  /** Aborting it closes the server and the ledger; runWorld then resolves. */
  signal: AbortSignal;
  /** Where the output lines go. @default process.stdout */
  write?: (text: string) => void;
}

/** Runs a world until the signal is aborted. */
export async function runWorld(options: RunWorldOptions): Promise<void> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const log = jsonLogger('world', () => utc(options.clock.now()), write);
  // A failed release is logged even when another error is the one rethrown: a ledger left open is worth knowing about.
  const releaseFailed = (resource: string, error: unknown): void =>
    log({ event: 'release_failed', resource, error: error instanceof Error ? error.message : String(error) });
  // Released in reverse: the server (which writes to the ledger) closes before the ledger does.
  await withReleasers(async (releasers) => {
    const ledger = WorldLedger.open(options.ledger);
    releasers.add('ledger', () => ledger.close());
    const world = await startWorldServer({
      ledger,
      clock: options.clock,
      port: options.port ?? 0,
      // No arguments here, ever: only who called, which tool, and how it ended.
      onCall: (entry) => log({ event: 'call', ...entry }),
    });
    releasers.add('world server', () => world.close());
    // Exactly this shape: the parent parses it to learn the port.
    write(`${JSON.stringify({ event: 'listening', port: world.port, pid: process.pid })}\n`);
    if (!options.signal.aborted) await once(options.signal, 'abort');
  }, releaseFailed);
  // Only once everything is closed: a parent that sees this line may open the ledger file itself.
  log({ event: 'stopped', pid: process.pid });
}
