import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chownSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { assertRedisReachable } from '../../src/adapters/bullmq/redis.js';
import { assertPgReachable } from '../../src/adapters/pg/connection.js';
import { descendantsOf, isRunning, isStopped } from './processes.js';

/*
 * A PostgreSQL or a Redis server of a test's own: its own process, its own
 * port (never the machine's 5432 or 6379), its own temp dir, so a test may
 * stop, restart, freeze and kill it mid-drill without touching anything
 * another test or the machine uses.
 *
 * States, one at a time:
 *   running --freeze--> frozen --thaw--> running
 *   running | frozen --stop--> stopped        (a frozen one is thawed first, so it can shut down)
 *   running | frozen --kill--> killed         (SIGKILL, every process of it; PostgreSQL recovers at the next start)
 *   stopped | killed --start--> running       (same port, same data dir)
 *   any --dispose--> disposed                 (final: everything killed, the temp dir removed)
 * An operation already done is a no-op (stop of a stopped server, thaw of a
 * running one); one that cannot apply is an OwnServerError (freeze of a
 * stopped server). Each waits on a condition read from /proc or the socket,
 * under a deadline, and its error names what did not happen and ends with the
 * server's log.
 *
 * Every server started is registered until disposed: disposeOwnServers() (an
 * afterAll or afterEach) disposes of them all, and while any is registered a
 * process 'exit' and a SIGTERM listener (how vitest ends a fork worker) kill
 * them and remove their dirs, so a worker that ends without its teardown
 * leaves nothing. Not covered: a SIGKILL of the worker, and vitest's threads
 * pool (a terminated worker thread runs no listener); tests must still
 * dispose in their own afterAll or afterEach.
 */

/** Where PostgreSQL 15's server binaries are. */
export const PG_BIN_DIR = '/usr/lib/postgresql/15/bin';
/** The Redis server binary. */
export const REDIS_SERVER = '/usr/bin/redis-server';

/** Where an operation stands: see the state machine above. */
export type OwnServerState = 'running' | 'frozen' | 'stopped' | 'killed' | 'disposed';

/** How long each kind of operation may take. */
export interface OwnServerOptions {
  /** For a start (initdb included) and a stop. @default 20_000 */
  startStopMs?: number;
  /** For freeze, thaw and kill, which only signal and read /proc. @default 5_000 */
  signalMs?: number;
}

const DEFAULTS = { startStopMs: 20_000, signalMs: 5_000 } satisfies Required<OwnServerOptions>;

/** How often a wait looks again. */
const POLL_MS = 25;

/** A server of the test's own (see the top of this file). */
export interface OwnServer {
  /** 'PostgreSQL' or 'Redis': what the messages call it. */
  readonly what: string;
  /** How a client reaches it (127.0.0.1 and its own port). */
  readonly url: string;
  readonly port: number;
  /** Its temp dir (data, log): gone once disposed. */
  readonly dir: string;
  readonly state: OwnServerState;
  /** The server's main process (the postmaster, redis-server); throws unless running or frozen. */
  pid(): number;
  /** The main process and every live descendant (PostgreSQL's backends); empty unless running or frozen. */
  pids(): number[];
  /** The last lines of its log. */
  logTail(lines?: number): string;
  /** A clean shutdown (PostgreSQL: fast, SIGINT; Redis: SIGTERM, nothing saved); resolves once every process is gone and the port refuses. */
  stop(): Promise<void>;
  /** Starts it again on the same port and dir; resolves once it answers. */
  start(): Promise<void>;
  /** stop() then start(). */
  restart(): Promise<void>;
  /** SIGSTOP to the main process and every descendant; resolves once all are stopped. Connections still open, nothing answers. */
  freeze(): Promise<void>;
  /** SIGCONT to all of them; resolves once none is stopped. */
  thaw(): Promise<void>;
  /** SIGKILL to the main process and every descendant; resolves once all are gone. */
  kill(): Promise<void>;
  /** Kills everything, removes the dir, unregisters it. Safe to call twice, and in any state. */
  dispose(): Promise<void>;
}

export interface OwnPostgres extends OwnServer {
  readonly kind: 'postgres';
  /** Its data directory (inside dir). */
  readonly dataDir: string;
}

export interface OwnRedis extends OwnServer {
  readonly kind: 'redis';
}

/** What failed: a deadline passed, the server exited on its own, an operation that cannot apply, or the setup. */
export type OwnServerErrorCode = 'QD_OWN_SERVER_TIMEOUT' | 'QD_OWN_SERVER_EXITED' | 'QD_OWN_SERVER_STATE' | 'QD_OWN_SERVER_SETUP';

/** A server of the test's own did not do what it was told. */
export class OwnServerError extends Error {
  constructor(
    readonly code: OwnServerErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'OwnServerError';
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// Whether the binaries are here, and the gates of the tests that need them.

/**
 * Whether a CI-like run must have the server (QD_REQUIRE_PG / QD_REQUIRE_REDIS =1, or CI set unless =0). The same
 * rule as postgres.ts and redis.ts, repeated: importing those connects to the machine's servers, which these tests
 * do not need.
 */
export function serverRequired(variable: 'QD_REQUIRE_PG' | 'QD_REQUIRE_REDIS', env: NodeJS.ProcessEnv = process.env): boolean {
  const require = env[variable] ?? '';
  if (require !== '') return require === '1';
  const ci = (env.CI ?? '').toLowerCase();
  return ci !== '' && ci !== '0' && ci !== 'false';
}

/** The postgres user's uid and gid, from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((row) => row.startsWith('postgres:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    return uid && gid ? { uid: Number(uid), gid: Number(gid) } : undefined;
  } catch {
    return undefined;
  }
}

const asRoot = process.getuid?.() === 0;

/** Why a PostgreSQL of the test's own cannot be started here, or undefined when it can. */
export function ownPostgresMissing(): string | undefined {
  for (const tool of ['initdb', 'postgres']) if (!existsSync(join(PG_BIN_DIR, tool))) return `${join(PG_BIN_DIR, tool)} is missing`;
  // initdb and postgres refuse to run as root.
  if (asRoot && postgresUser() === undefined) return 'running as root and there is no postgres user to run the server as';
  return undefined;
}

/** Why a Redis of the test's own cannot be started here, or undefined when it can. */
export function ownRedisMissing(): string | undefined {
  return existsSync(REDIS_SERVER) ? undefined : `${REDIS_SERVER} is missing`;
}

function skipWhen(missing: string | undefined, variable: 'QD_REQUIRE_PG' | 'QD_REQUIRE_REDIS', server: string, what: string): boolean {
  if (missing === undefined) return false;
  if (serverRequired(variable)) throw new OwnServerError('QD_OWN_SERVER_SETUP', `${server} is required here (${variable}=1, or CI set): ${missing}`);
  console.warn(`No ${server} of their own can be started (${missing}), so skipped: ${what} (set ${variable}=1 to fail instead)`);
  return true;
}

/** The gate of tests that start their own PostgreSQL: `describe.skipIf(skipWithoutOwnPostgres('...'))`; prints one line when it skips. */
export function skipWithoutOwnPostgres(what: string): boolean {
  return skipWhen(ownPostgresMissing(), 'QD_REQUIRE_PG', 'PostgreSQL', what);
}

/** The gate of tests that start their own Redis: `describe.skipIf(skipWithoutOwnRedis('...'))`; prints one line when it skips. */
export function skipWithoutOwnRedis(what: string): boolean {
  return skipWhen(ownRedisMissing(), 'QD_REQUIRE_REDIS', 'Redis', what);
}

// ---------------------------------------------------------------------------------------------------------------------
// Ports and waiting.

/**
 * Ports are drawn from below Linux's ephemeral range (32768 and up): there no
 * client's outgoing connection takes the port while the server is stopped, so
 * it starts again where it was.
 */
const PORT_RANGE = { low: 20_000, high: 32_000 };
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/** A port nothing listens on now (and this process has not handed out). */
async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PORT_RANGE.low + Math.floor(Math.random() * (PORT_RANGE.high - PORT_RANGE.low));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new OwnServerError('QD_OWN_SERVER_SETUP', `no free port found in ${PORT_RANGE.low}-${PORT_RANGE.high} after 100 tries`);
}

/** Whether a TCP connection to 127.0.0.1:port is refused (nothing listens). A frozen server still accepts: false. */
export function portRefuses(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (refused: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(refused);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(false));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}

/** Resolves once `check` holds; throws `failure()` once `deadlineMs` has passed first (and what `check` throws). */
async function waitUntil(deadlineMs: number, check: () => boolean | Promise<boolean>, failure: () => OwnServerError): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() >= deadline) throw failure();
    await delay(POLL_MS);
  }
}

/** The same, blocking: for the process 'exit' listener, which cannot wait on anything else. */
function waitUntilSync(deadlineMs: number, check: () => boolean): boolean {
  const deadline = Date.now() + deadlineMs;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!check()) {
    if (Date.now() >= deadline) return false;
    Atomics.wait(cell, 0, 0, 1);
  }
  return true;
}

/** Sends a signal; a process already gone is no error. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// The registry: every server not yet disposed, and the 'exit' listener that exists while there is one.

const live = new Set<OwnServerProcess>();

function abandonAll(): void {
  for (const server of live) {
    try {
      server.abandon();
    } catch {
      // Keep going: the others still need it, and the process is ending.
    }
  }
  live.clear();
  unlisten();
}

/**
 * Vitest ends a fork worker with SIGTERM, whose default action ends the
 * process without an 'exit' event: so the servers are abandoned on it too,
 * and the signal raised again, to end the worker as it would have ended
 * (unless someone else listens for it, who then decides).
 */
function abandonAllOnSigterm(): void {
  abandonAll();
  if (process.listenerCount('SIGTERM') === 0) process.kill(process.pid, 'SIGTERM');
}

function unlisten(): void {
  process.off('exit', abandonAll);
  process.off('SIGTERM', abandonAllOnSigterm);
}

function register(server: OwnServerProcess): void {
  if (live.size === 0) {
    process.on('exit', abandonAll);
    process.on('SIGTERM', abandonAllOnSigterm);
  }
  live.add(server);
}

function unregister(server: OwnServerProcess): void {
  live.delete(server);
  if (live.size === 0) unlisten();
}

/** Disposes of every server started in this process and not yet disposed (for an afterAll or afterEach); rethrows the first failure. */
export async function disposeOwnServers(): Promise<void> {
  const errors: unknown[] = [];
  for (const server of [...live].reverse()) await server.dispose().catch((error: unknown) => errors.push(error));
  if (errors.length > 0) throw errors[0];
}

// ---------------------------------------------------------------------------------------------------------------------
// One server process and its operations; the kinds differ only in this spec.

interface ServerSpec {
  what: string;
  dir: string;
  logPath: string;
  url(port: number): string;
  command: string;
  args(port: number): string[];
  /** Whom to run it as (PostgreSQL, when we are root). */
  runAs: { uid: number; gid: number } | undefined;
  /** PostgreSQL's fast shutdown is SIGINT; Redis's shutdown is SIGTERM. */
  stopSignal: NodeJS.Signals;
  /** Throws unless the server answers at `url`. */
  answer(url: string): Promise<void>;
  /** Frees what the dead server's processes held outside its dir (PostgreSQL's SysV segment). Synchronous, best effort. */
  afterDeath?(): void;
}

/** Whether a log says the port was taken (both servers say "Address already in use"). */
const PORT_TAKEN = /address already in use/i;

class OwnServerProcess implements OwnServer {
  #state: OwnServerState = 'stopped';
  #child: ChildProcess | undefined;
  #exit: string | undefined;
  #everStarted = false;
  #lastProbe = '';
  #port: number;

  constructor(
    readonly spec: ServerSpec,
    port: number,
    readonly limits: Required<OwnServerOptions>,
  ) {
    this.#port = port;
    register(this);
  }

  get what(): string {
    return this.spec.what;
  }
  get url(): string {
    return this.spec.url(this.#port);
  }
  get port(): number {
    return this.#port;
  }
  get dir(): string {
    return this.spec.dir;
  }
  get state(): OwnServerState {
    return this.#state;
  }

  pid(): number {
    const pid = this.#child?.pid;
    if ((this.#state !== 'running' && this.#state !== 'frozen') || pid === undefined) throw this.#misuse('pid()', 'it has no process');
    return pid;
  }

  pids(): number[] {
    if (this.#state !== 'running' && this.#state !== 'frozen') return [];
    const main = this.pid();
    return [main, ...descendantsOf(main).filter(isRunning)];
  }

  logTail(lines = 20): string {
    try {
      return readFileSync(this.spec.logPath, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  async start(): Promise<void> {
    if (this.#state === 'running') return;
    if (this.#state === 'frozen') throw this.#misuse('start()', 'it is frozen: thaw() or stop() it first');
    if (this.#state === 'disposed') throw this.#misuse('start()', 'it is disposed');
    for (let attempt = 1; ; attempt++) {
      this.#lastProbe = '';
      const logOffset = existsSync(this.spec.logPath) ? statSync(this.spec.logPath).size : 0;
      this.#spawn();
      try {
        await waitUntil(
          this.limits.startStopMs,
          () => this.#answers(),
          () => this.#timeout(`come up (answer at ${this.url})`, this.#lastProbe),
        );
        this.#state = 'running';
        this.#everStarted = true;
        return;
      } catch (error) {
        await this.#killAndWait().catch(() => {});
        this.#state = 'stopped';
        // Another process took the port between our check and the server's bind: a first start may move.
        const portTaken = PORT_TAKEN.test(readFileSync(this.spec.logPath, 'utf8').slice(logOffset));
        if (!portTaken || this.#everStarted || attempt >= 3) throw error;
        this.#port = await freePort();
      }
    }
  }

  async stop(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'killed') return;
    if (this.#state === 'disposed') throw this.#misuse('stop()', 'it is disposed');
    if (this.#state === 'frozen') await this.thaw();
    const pids = this.pids();
    signal(this.pid(), this.spec.stopSignal);
    await waitUntil(
      this.limits.startStopMs,
      async () => this.#exit !== undefined && !pids.some(isRunning) && (await portRefuses(this.#port)),
      () => this.#timeout(`shut down (${this.spec.stopSignal}: every process gone, the port refusing)`),
    );
    this.#state = 'stopped';
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async freeze(): Promise<void> {
    if (this.#state === 'frozen') return;
    if (this.#state !== 'running') throw this.#misuse('freeze()', 'only a running server can be frozen');
    const main = this.pid();
    // The main process first, so that it forks nothing new while its children are stopped.
    signal(main, 'SIGSTOP');
    await waitUntil(
      this.limits.signalMs,
      () => {
        if (!isStopped(main)) return false;
        const pending = descendantsOf(main).filter((pid) => isRunning(pid) && !isStopped(pid));
        for (const pid of pending) signal(pid, 'SIGSTOP');
        return pending.length === 0;
      },
      () => this.#timeout('freeze (every process stopped)'),
    );
    this.#state = 'frozen';
  }

  async thaw(): Promise<void> {
    if (this.#state === 'running') return;
    if (this.#state !== 'frozen') throw this.#misuse('thaw()', 'only a frozen server can be thawed');
    const main = this.pid();
    await waitUntil(
      this.limits.signalMs,
      () => {
        const stopped = [...descendantsOf(main), main].filter(isStopped);
        for (const pid of stopped) signal(pid, 'SIGCONT');
        return stopped.length === 0;
      },
      () => this.#timeout('thaw (no process stopped)'),
    );
    this.#state = 'running';
  }

  async kill(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'killed') return;
    if (this.#state === 'disposed') throw this.#misuse('kill()', 'it is disposed');
    await this.#killAndWait();
    this.#state = 'killed';
  }

  async dispose(): Promise<void> {
    if (this.#state === 'disposed') return;
    const errors: unknown[] = [];
    await this.kill().catch((error: unknown) => errors.push(error));
    try {
      rmSync(this.spec.dir, { recursive: true, force: true });
    } catch (error) {
      errors.push(error);
    }
    this.#state = 'disposed';
    unregister(this);
    if (errors.length > 0) throw errors[0];
  }

  /** The 'exit' listener's dispose: synchronous, so it signals and removes, and waits only as long as it must. */
  abandon(): void {
    if (this.#state === 'disposed') return;
    this.#killNow();
    try {
      rmSync(this.spec.dir, { recursive: true, force: true });
    } catch {
      // Best effort: the process is exiting.
    }
    this.#state = 'disposed';
  }

  #spawn(): void {
    const log = openSync(this.spec.logPath, 'a');
    let child: ChildProcess;
    try {
      child = spawn(this.spec.command, this.spec.args(this.#port), {
        cwd: this.spec.dir,
        stdio: ['ignore', log, log],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.spec.dir, LC_ALL: 'C', TZ: 'UTC' },
        ...this.spec.runAs,
      });
    } finally {
      closeSync(log);
    }
    this.#child = child;
    this.#exit = undefined;
    child.once('error', (error) => {
      if (this.#child === child) this.#exit ??= `could not be run: ${error.message}`;
    });
    child.once('exit', (code, name) => {
      if (this.#child === child) this.#exit = name === null ? `exited with code ${code}` : `was ended by ${name}`;
    });
    // A server a test forgot must not keep the worker alive: the 'exit' listener ends it.
    child.unref();
  }

  /** Whether it answers now; throws at once if its process has ended. */
  async #answers(): Promise<boolean> {
    if (this.#exit !== undefined) {
      throw new OwnServerError('QD_OWN_SERVER_EXITED', `${this.what} on port ${this.#port} ${this.#exit} before it answered${this.#logSection()}`);
    }
    try {
      await this.spec.answer(this.url);
      return true;
    } catch (error) {
      this.#lastProbe = error instanceof Error ? error.message : String(error);
      return false;
    }
  }

  /**
   * SIGKILL to every process of the server: the main one is stopped first, so
   * it cannot fork (PostgreSQL's postmaster restarts its children when one
   * dies) and its children are still its own when they are listed.
   */
  #killNow(): number[] {
    const main = this.#child?.pid;
    let pids: number[] = [];
    if (main !== undefined && this.#exit === undefined) {
      signal(main, 'SIGSTOP');
      waitUntilSync(this.limits.signalMs, () => isStopped(main) || !isRunning(main));
      pids = [main, ...descendantsOf(main)];
      for (const pid of pids) signal(pid, 'SIGKILL');
    }
    // Also when it died on its own: a server that crashed left the same behind.
    if (this.#child !== undefined) this.spec.afterDeath?.();
    return pids;
  }

  async #killAndWait(): Promise<void> {
    const pids = this.#killNow();
    await waitUntil(
      this.limits.signalMs,
      () => (this.#child === undefined || this.#exit !== undefined) && !pids.some(isRunning),
      () => this.#timeout('die (SIGKILL: every process gone)'),
    );
  }

  #logSection(): string {
    return `; its log (${this.spec.logPath}) ends:\n${this.logTail()}`;
  }

  #timeout(what: string, lastCheck = ''): OwnServerError {
    const probe = lastCheck === '' ? '' : ` (last check: ${lastCheck})`;
    return new OwnServerError(
      'QD_OWN_SERVER_TIMEOUT',
      `${this.what} on port ${this.#port} did not ${what} in time${probe}; the machine may be overloaded, or the server stuck${this.#logSection()}`,
    );
  }

  #misuse(operation: string, why: string): OwnServerError {
    return new OwnServerError('QD_OWN_SERVER_STATE', `${operation} on ${this.what} at port ${this.#port}, which is ${this.#state}: ${why}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// The two kinds.

const run = promisify(execFile);

/** Settings for speed and isolation: no fsync, small buffers, TCP on 127.0.0.1 only, shared memory that dies with the dir. */
const PG_SETTINGS = [
  "listen_addresses = '127.0.0.1'",
  // No Unix socket: nothing of it outside the temp dir, no lock file next to the machine's.
  "unix_socket_directories = ''",
  'fsync = off',
  'synchronous_commit = off',
  'full_page_writes = off',
  'shared_buffers = 16MB',
  'huge_pages = off',
  // Dynamic segments as files in the data dir, not in /dev/shm, where a killed server would leave them.
  'dynamic_shared_memory_type = mmap',
  'logging_collector = off',
];

/**
 * The SysV segment a postmaster holds as its interlock (its key and id are on
 * line 7 of postmaster.pid) outlives a killed server: removed here, once the
 * segment with that very key and id is still listed. A clean shutdown removes
 * both the file and the segment.
 */
function releasePgInterlock(dataDir: string): void {
  try {
    const [key, id] = (readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[6] ?? '').trim().split(/\s+/);
    if (!key || !id) return;
    const listed = readFileSync('/proc/sysvipc/shm', 'utf8')
      .split('\n')
      .slice(1)
      .some((row) => {
        const [rowKey, rowId] = row.trim().split(/\s+/);
        return rowKey === key && rowId === id;
      });
    // IPC_RMID on a segment still attached frees it when the last process detaches: right after a SIGKILL too.
    if (listed) execFileSync('ipcrm', ['-m', id], { stdio: 'ignore' });
  } catch {
    // No file (shut down cleanly), or no ipcrm: nothing more to do.
  }
}

async function initdb(dataDir: string, runAs: ServerSpec['runAs'], timeoutMs: number): Promise<void> {
  const args = ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C', '--no-instructions'];
  try {
    await run(join(PG_BIN_DIR, 'initdb'), args, { timeout: timeoutMs, env: { PATH: process.env.PATH, LC_ALL: 'C' }, ...runAs });
  } catch (error) {
    const output = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`.trim().split('\n').slice(-20);
    throw new OwnServerError(
      'QD_OWN_SERVER_SETUP',
      `initdb into ${dataDir} failed (as ${runAs ? 'the postgres user, who must be able to reach that dir' : 'this user'}): ${(error as Error).message}\n${output.join('\n')}`,
      {
        cause: error,
      },
    );
  }
  appendFileSync(join(dataDir, 'postgresql.conf'), `\n# queue-drill: a test's own server\n${PG_SETTINGS.join('\n')}\n`);
}

function resolveOptions(options: OwnServerOptions): Required<OwnServerOptions> {
  const limits = { startStopMs: options.startStopMs ?? DEFAULTS.startStopMs, signalMs: options.signalMs ?? DEFAULTS.signalMs };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0)
      throw new OwnServerError('QD_OWN_SERVER_SETUP', `${name} must be a positive number of ms, not ${value}`);
  }
  return limits;
}

/** Makes a server from its spec and starts it; a server that does not come up is disposed of (the error says why). */
async function startServer<T extends OwnServer>(spec: ServerSpec, limits: Required<OwnServerOptions>, extra: object): Promise<T> {
  const server = new OwnServerProcess(spec, await freePort(), limits);
  try {
    await server.start();
  } catch (error) {
    await server.dispose().catch(() => {});
    throw error;
  }
  return Object.assign(server, extra) as unknown as T;
}

/** A fresh temp dir; owned by `runAs` when given. */
function ownDir(kind: string, runAs: ServerSpec['runAs']): string {
  const dir = mkdtempSync(join(tmpdir(), `queue-drill-own-${kind}-`));
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  return dir;
}

/** A PostgreSQL 15 of the test's own: initdb into a fresh temp dir, trust auth, on a free port of 127.0.0.1; resolves once it answers. */
export async function startOwnPostgres(options: OwnServerOptions = {}): Promise<OwnPostgres> {
  const limits = resolveOptions(options);
  const missing = ownPostgresMissing();
  if (missing !== undefined) throw new OwnServerError('QD_OWN_SERVER_SETUP', `cannot start a PostgreSQL of the test's own: ${missing}`);
  // The server refuses to run as root: then it runs as the postgres user, which owns the dir.
  const runAs = asRoot ? postgresUser() : undefined;
  const dir = ownDir('postgres', runAs);
  const dataDir = join(dir, 'data');
  try {
    await initdb(dataDir, runAs, limits.startStopMs);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const spec: ServerSpec = {
    what: 'PostgreSQL',
    dir,
    logPath: join(dir, 'postgres.log'),
    url: (port) => `postgres://postgres@127.0.0.1:${port}/postgres`,
    command: join(PG_BIN_DIR, 'postgres'),
    args: (port) => ['-D', dataDir, '-p', String(port)],
    runAs,
    stopSignal: 'SIGINT',
    answer: (url) => assertPgReachable(url, 1_000),
    afterDeath: () => releasePgInterlock(dataDir),
  };
  return startServer<OwnPostgres>(spec, limits, { kind: 'postgres', dataDir });
}

/** A Redis of the test's own: not daemonized, nothing saved, its dir a fresh temp dir, on a free port of 127.0.0.1; resolves once it answers. */
export async function startOwnRedis(options: OwnServerOptions = {}): Promise<OwnRedis> {
  const limits = resolveOptions(options);
  const missing = ownRedisMissing();
  if (missing !== undefined) throw new OwnServerError('QD_OWN_SERVER_SETUP', `cannot start a Redis of the test's own: ${missing}`);
  const dir = ownDir('redis', undefined);
  const spec: ServerSpec = {
    what: 'Redis',
    dir,
    logPath: join(dir, 'redis.log'),
    url: (port) => `redis://127.0.0.1:${port}`,
    command: REDIS_SERVER,
    // An empty --logfile is standard output: the log file the child was given.
    args: (port) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--dir',
      dir,
      '--logfile',
      '',
    ],
    runAs: undefined,
    stopSignal: 'SIGTERM',
    answer: (url) => assertRedisReachable(url),
  };
  return startServer<OwnRedis>(spec, limits, { kind: 'redis' });
}
