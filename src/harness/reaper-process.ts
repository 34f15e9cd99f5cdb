import { readdirSync, readFileSync } from 'node:fs';
import { HARNESS_TOKEN_ENV } from './harness-token.js';

/*
 * The reaper: a small process of its own that outlives a harness killed with
 * SIGKILL, to kill what that harness started. A harness cannot clean up after
 * SIGKILL (no handler runs), and its children are each in a process group of
 * their own (so a crash fault reaches what they start), so nothing else would
 * end them: the world, the coordinator and the workers would run on.
 *
 * The harness holds the write end of this process's stdin and never writes to
 * it; when it reads end-of-file, the harness is gone, whatever way it went (the
 * kernel closes its end on any exit). Every process the harness started
 * carries its token in the environment (`QD_HARNESS_TOKEN`), and so does
 * whatever those start, so the reaper finds them all in /proc, however far
 * down and in whatever group, with no message that could be lost in the
 * instant the harness died. It SIGKILLs each, and its group (SIGKILL ends a
 * stopped process too, so a child a pause fault froze goes with the rest),
 * and exits.
 *
 * It imports nothing of the project but that name, and starts in a few tens of milliseconds;
 * it runs in a session of its own, so a Ctrl-C or a hang-up meant for the
 * harness never reaches it.
 */

/** The processes (other than this one) whose environment holds `QD_HARNESS_TOKEN=token`. */
function processesWithToken(token: string): number[] {
  const marker = `\0${HARNESS_TOKEN_ENV}=${token}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (`\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(marker)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

function kill(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Not a group leader, or already gone.
    }
  }
}

/** Kills every process of the harness, twice over: one that was starting a child during the first pass leaves none. */
function reap(token: string): never {
  for (let pass = 0; pass < 2; pass++) for (const pid of processesWithToken(token)) kill(pid);
  process.exit(0);
}

const token = process.argv[2];
if (token === undefined || token === '') {
  process.stderr.write('usage: reaper-process.js TOKEN (started by the harness, not by hand)\n');
  process.exit(2);
}
process.stdin.on('data', () => {});
process.stdin.on('end', () => reap(token));
process.stdin.on('error', () => reap(token));
