import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from './clock.js';
import { HarnessError } from './errors.js';

/*
 * A start barrier through a directory, between the harness and processes it
 * started one by one that must begin some work at the same instant (producers
 * racing on the same keys). Each process, once set up (connected), says so
 * with a file `<name>.ready`; the harness, once every one is ready, writes the
 * file `go` with an instant a little ahead; each process waits for `go`, then
 * for the instant. However long each took to start, they begin within a
 * timer's tick of each other. A process started after the release (a restart)
 * finds `go` there and begins at once: its partners are long under way.
 *
 * A common instant fixed before the processes start would not do: a process
 * can take longer to start than any margin chosen in advance on a busy
 * machine, and then starts alone.
 */

/** The file the harness writes to let every waiting process go. */
const GO_FILE = 'go';
const READY_SUFFIX = '.ready';

/** How far ahead of the release the common instant lies: long enough for every waiting process to have seen `go`. */
export const RELEASE_LEAD_MS = 60;

/** How often a waiting process looks for `go`: well inside the lead, so each sees it before the instant. */
const POLL_MS = 5;

/** A process's side: it is set up and waits to be let go. */
export function signalReady(dir: string, name: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}${READY_SUFFIX}`), `${process.pid}\n`);
}

/**
 * A process's side: waits until the harness lets every process go, then until
 * the common instant; returns the instant. Fails after `timeoutMs` with no
 * release: the harness that would release it is gone or stuck.
 */
export async function awaitRelease(dir: string, options: { clock: Clock; timeoutMs: number }): Promise<number> {
  const deadline = options.clock.now() + options.timeoutMs;
  let at = readRelease(dir);
  while (at === undefined) {
    if (options.clock.now() >= deadline)
      throw new HarnessError('QD_START_BARRIER_TIMEOUT', `no release at the start barrier ${dir} within ${options.timeoutMs} ms`);
    await sleep(POLL_MS);
    at = readRelease(dir);
  }
  // A timer may fire a millisecond before the wall clock reaches its instant (timers run on a monotonic clock of
  // their own), so wait again until the clock says the instant has come.
  for (let wait = at - options.clock.now(); wait > 0; wait = at - options.clock.now()) await sleep(wait);
  return at;
}

/** The harness's side: the names of the processes that said they are ready. */
export function readyNames(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(READY_SUFFIX))
    .map((file) => file.slice(0, -READY_SUFFIX.length))
    .sort();
}

/** The harness's side: lets every process go at `at` (ms since the epoch). Written whole, in one rename, so no process reads half of it. */
export function release(dir: string, at: number): void {
  mkdirSync(dir, { recursive: true });
  const temporary = join(dir, `.${GO_FILE}.${process.pid}.tmp`);
  writeFileSync(temporary, `${at}\n`);
  renameSync(temporary, join(dir, GO_FILE));
}

/** The instant the harness let the processes go at, or undefined before it did. */
export function readRelease(dir: string): number | undefined {
  const file = join(dir, GO_FILE);
  if (!existsSync(file)) return undefined;
  const at = Number(readFileSync(file, 'utf8').trim());
  if (!Number.isFinite(at)) throw new HarnessError('QD_START_BARRIER_BAD', `${file} holds no instant: the harness wrote it wrong`);
  return at;
}
