import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { basename } from 'node:path';
import { promisify } from 'node:util';
import { answeringAgain, assertOnThisMachine, ServerRestartError } from '../server-restart.js';
import { assertNatsReachable, maskNatsUrl } from './server.js';

const run = promisify(execFile);

/** How long the old server may take to go after SIGTERM (JetStream writes its state out first). */
const GONE_WITHIN_MS = 30_000;

/** A nats-server process on this machine: its pid, its executable and its arguments. */
interface ServerProcess {
  pid: number;
  executable: string;
  args: string[];
}

/** The port a nats-server's arguments listen on (`-p`, `--port`, `-port`; else NATS's 4222). */
function portOf(args: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const inline = /^--?(?:p|port)=(\d+)$/.exec(arg);
    if (inline) return Number(inline[1]);
    if (/^--?(?:p|port)$/.test(arg)) return Number(args[i + 1]);
  }
  return 4222;
}

/** The nats-server listening on `port`, read from /proc (Linux), or null. */
function serverOn(port: number): ServerProcess | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      if (argv.length === 0 || basename(argv[0] ?? '') !== 'nats-server') continue;
      const args = argv.slice(1);
      if (portOf(args) !== port) continue;
      return { pid: Number(entry), executable: readlinkSync(`/proc/${entry}/exe`), args };
    } catch {
      // A process that ended while it was read, or one not ours to read.
    }
  }
  return null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until `pid` has exited and nothing listens on the port. */
async function gone(pid: number, host: string, port: number): Promise<void> {
  const started = Date.now();
  while (alive(pid) || (await portOpen(host, port))) {
    if (Date.now() - started > GONE_WITHIN_MS)
      throw new ServerRestartError(`nats-server (pid ${pid}) did not stop within ${GONE_WITHIN_MS} ms of SIGTERM`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Restarts the NATS server a URL points at, as its operator would: SIGTERM
 * (nats-server shuts down cleanly, JetStream's file store written out), then
 * the same executable started again with the arguments it had, the way this
 * machine starts it (`start-stop-daemon --start --oknodo --background --exec
 * /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server
 * -l /var/log/nats-server.log`), and waits until it answers with JetStream.
 * Only a server on this machine: the harness never restarts one it cannot see.
 */
export async function restartNats(url: string): Promise<string> {
  const parsed = assertOnThisMachine(url, 'NATS server');
  const port = Number(parsed.port || 4222);
  const host = parsed.hostname === 'localhost' ? '127.0.0.1' : parsed.hostname.replace(/^\[|\]$/g, '');
  const server = serverOn(port);
  if (!server) throw new ServerRestartError(`no nats-server process on this machine listens on port ${port}`);
  const started = Date.now();
  process.kill(server.pid, 'SIGTERM');
  await gone(server.pid, host, port);
  await run('start-stop-daemon', ['--start', '--oknodo', '--background', '--exec', server.executable, '--', ...server.args]);
  await answeringAgain(() => assertNatsReachable(url), started);
  return `NATS at ${maskNatsUrl(url)} restarted (SIGTERM, then started again as it was), answering again after ${Date.now() - started} ms`;
}
