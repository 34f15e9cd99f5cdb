import { readFileSync } from 'node:fs';
import type { Child, Supervisor } from './supervisor.js';
import { waitFor } from './wait-for.js';

/** A running world child and where to reach it. */
export interface WorldProcess {
  child: Child;
  url: string;
  port: number;
}

// The line must come from this very child: a stale log of an earlier run in the same place names a dead port.
function announcedPort(logFile: string, pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    if (!line.includes('"listening"')) continue;
    const announced = JSON.parse(line) as { port: number; pid: number };
    if (announced.pid === pid) return announced.port;
  }
  return undefined;
}

/** Starts `queue-drill world` on a ledger file and waits until it says which port it listens on. */
export function startWorld(supervisor: Supervisor, ledger: string, name = 'world', timeoutMs = 10_000): Promise<WorldProcess> {
  return startListening(supervisor, name, ['world', '--ledger', ledger], timeoutMs);
}

/** Starts `queue-drill ARGS` as child `name` and waits until it says (as a world does) which port it listens on. */
export async function startListening(supervisor: Supervisor, name: string, args: readonly string[], timeoutMs = 10_000): Promise<WorldProcess> {
  const child = supervisor.spawn(name, args);
  const port = await waitFor(
    () => {
      if (!child.alive) throw new Error(`${name} exited before it listened; see ${child.logFile}.err`);
      return announcedPort(child.logFile, child.pid);
    },
    { timeoutMs, intervalMs: 10, what: `${name} to announce its port in ${child.logFile}` },
  );
  return { child, port, url: `http://127.0.0.1:${port}` };
}
