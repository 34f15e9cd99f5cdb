import { systemClock } from '../../kernel/clock.js';
import type { QueueAdapter } from '../../port/adapter.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { shownCommand, splitCommand } from './command-line.js';
import { demandsOnTheWire, fitChild, parseFitAnswer } from './fit.js';
import { type ChildHello, HelloError, helloSync, startChild } from './hello.js';
import { connectProcess } from './process-connection.js';
import { text } from './protocol.js';
import { sagaFileEnv, sagaFileFor, serversOnTheWire } from './saga-file.js';

/** The prefix of `--queue` that names a queue in another process: `process:CMD ARGS`. */
export const PROCESS_PREFIX = 'process:';

/** A child started only to be asked something and closed. */
const quiet = { now: () => Date.now(), stderr: 'inherit' as const };

/**
 * Asks one short-lived child of `argv` `op` (provision, teardown, fit; the caller says what failing means), with the
 * hello that child said: heard on the way, so no second child is started only to say it.
 */
async function ask(
  argv: readonly string[],
  op: string,
  fields: Record<string, unknown>,
): Promise<{ body: Record<string, unknown>; said: ChildHello }> {
  const { channel, hello: said } = await startChild(argv, quiet);
  try {
    return { body: await channel.request(op, fields), said };
  } finally {
    await channel.close();
  }
}

/**
 * A queue in any language, run as a child speaking the process protocol
 * (docs/protocol.md). Every drill process that connects starts its own
 * child of the command; what the queue is (its name, version and
 * capabilities) is its `hello`, heard once per process (synchronously when a
 * property is read before anything else has started a child).
 */
export function processAdapter(command: string): QueueAdapter {
  const argv = splitCommand(command);
  const hello = () => helloSync(argv);
  return {
    name: `${PROCESS_PREFIX}${command}`,
    get description() {
      return hello().description;
    },
    get version() {
      return `${hello().name} ${hello().version} (process protocol ${hello().protocol})`;
    },
    get capabilities() {
      return hello().capabilities;
    },
    get locatorKind() {
      return hello().locatorKind;
    },
    get needs() {
      return hello().needs;
    },
    get options() {
      return hello().options;
    },
    soundness: 'sound',
    async preflight() {
      const { channel } = await startChild(argv, quiet);
      await channel.close();
    },
    async provision(request) {
      let said: ChildHello;
      let locator: string;
      let where: string;
      try {
        let body: Record<string, unknown>;
        ({ body, said } = await ask(argv, 'provision', {
          run_dir: request.runDir,
          run_id: request.runId,
          servers: serversOnTheWire(request.servers),
          queue_options: request.options ?? {},
        }));
        locator = text(body, 'locator', 'the answer to provision');
        where = typeof body.where === 'string' ? body.where : locator;
      } catch (error) {
        throw new HelloError(
          `${shownCommand(command)} could not provision a queue for ${request.runId}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      // A queue on a server (protocol 2, a name locator) is removed by its child unless kept; a file stays with its run
      // directory, as every file-backed queue's does (the history and approve commands the report prints read it).
      const teardown =
        said.locatorKind === 'name'
          ? async ({ keep }: { keep: boolean }) => {
              await ask(argv, 'teardown', { store: locator, keep, servers: serversOnTheWire(request.servers) });
            }
          : async () => undefined;
      if (said.capabilities.sagaStore === 'in-queue') return { locator, env: {}, where, teardown };
      // Beside the run: made now, before the drill's processes start and race to make it.
      const sagaFile = sagaFileFor(locator, request.runDir, said.locatorKind);
      const env = said.locatorKind === 'name' ? sagaFileEnv(sagaFile) : {};
      FileSagaStore.open(sagaFile, systemClock()).close();
      return { locator, env, where: `${where} (saga: ${sagaFile})`, teardown };
    },
    connect: (locator, options) => connectProcess(argv, locator, options),
    async fit(demands, servers) {
      const said = hello();
      const own = fitChild(said, command, demands);
      if (!own.ok || said.protocol === 1) return own;
      // Protocol 2: the child says itself whether it can honour the drill, and how it maps it onto its own options.
      let answer: Record<string, unknown>;
      try {
        answer = (await ask(argv, 'fit', { demands: demandsOnTheWire(demands), servers: serversOnTheWire(servers) })).body;
      } catch (error) {
        throw new HelloError(`${shownCommand(command)} did not answer fit: ${error instanceof Error ? error.message : String(error)}`);
      }
      const childs = parseFitAnswer(answer);
      return childs.ok ? { ...own, ...childs, mapping: { ...own.mapping, ...childs.mapping } } : childs;
    },
  };
}
