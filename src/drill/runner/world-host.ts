import { mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { type ChildExit, STARVED_SUFFIX, Supervisor } from '../../harness/supervisor.js';
import { startListening, type WorldProcess } from '../../harness/world-process.js';

/** A world opened in the host: where its scenario reaches it, and how the harness closes it (once; a second close does nothing). */
export interface HostedWorld {
  url: string;
  port: number;
  /** The host's: the process that serves this world. */
  pid: number;
  /** Where the host writes its starved spans (it serves every world of the drill: read for this world's time alone). */
  starvedLog: string;
  /** Settles when the host exits: whenever it does before the scenario closes its world, the world was lost. */
  exited: Promise<ChildExit>;
  close(): Promise<void>;
}

/** How long a control request may take: opening a world is a ledger and a listening socket. */
const CONTROL_TIMEOUT_MS = 10_000;

/** One JSON request to the host's control port. */
function post(port: number, path: string, body: unknown): Promise<Record<string, unknown>> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
          if (res.statusCode === 200) resolve(answer);
          else reject(new Error(`the world host refused ${path}: ${String(answer.error ?? res.statusCode)}`));
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(CONTROL_TIMEOUT_MS, () => req.destroy(new Error(`the world host did not answer ${path} within ${CONTROL_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * The worlds of a drill's scenarios, served by one `queue-drill world-host`
 * process (src/world/world-host.ts) started at the first scenario and stopped
 * with the drill: each scenario still gets a world of its own (its ledger, its
 * port, its call log), without a process start for it. A host that died is
 * started again at the next open.
 */
export class WorldHost {
  private readonly supervisor: Supervisor;
  private host: Promise<WorldProcess> | null = null;

  /**
   * `logDir`: where the host's own log goes (the drill's run directory). With `removeLogs`, stop()
   * removes it: for runs that keep only what failed (explore, soak), so a clean run's folder ends empty.
   * (A host in a temporary folder of its own would leave that folder behind when the harness is SIGKILLed.)
   */
  constructor(
    logDir: string,
    private readonly removeLogs = false,
  ) {
    mkdirSync(logDir, { recursive: true });
    // The world serves 127.0.0.1 and calls nothing: no TLS, so no extra CA certificates (src/harness/ca-bundle.ts); its
    // ledger is a SQLite file every scenario's processes write through it (src/harness/heap-trim.ts).
    this.supervisor = new Supervisor(logDir, {}, { starvation: true, caBundle: false, keepFreedHeap: true });
  }

  private async running(): Promise<WorldProcess> {
    const current = this.host && (await this.host.catch(() => null));
    if (current?.child.alive) return current;
    this.host = startListening(this.supervisor, 'world-host', ['world-host']);
    return this.host;
  }

  /** Opens a world on `ledger`, its calls logged to `logFile`. */
  async open(ledger: string, logFile: string): Promise<HostedWorld> {
    const host = await this.running();
    const { port } = (await post(host.port, '/open', { ledger, log: logFile })) as { port: number };
    let closed: Promise<void> | undefined;
    return {
      url: `http://127.0.0.1:${port}`,
      port,
      pid: host.child.pid,
      starvedLog: `${host.child.logFile}${STARVED_SUFFIX}`,
      exited: host.child.exited,
      close: () => {
        closed ??= host.child.alive ? post(host.port, '/close', { port }).then(() => undefined) : Promise.resolve();
        return closed;
      },
    };
  }

  /** Stops the host (every world it still holds closes with it). */
  async stop(): Promise<void> {
    await this.supervisor.stopAll();
    if (!this.removeLogs) return;
    for (const child of this.supervisor.all()) {
      for (const file of [child.logFile, `${child.logFile}.err`, `${child.logFile}${STARVED_SUFFIX}`]) rmSync(file, { force: true });
    }
  }
}
