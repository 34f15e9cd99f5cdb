import { systemClock } from '../../kernel/clock.js';
import type { QueueAdapter } from '../../port/adapter.js';
import { FileSagaStore } from '../saga-file/file-saga-store.js';
import { shownCommand, splitCommand } from './command-line.js';
import { fitChild } from './fit.js';
import { HelloError, helloSync, startChild } from './hello.js';
import { connectProcess } from './process-connection.js';
import { text } from './protocol.js';
import { sagaFileFor } from './saga-file.js';

/** The prefix of `--queue` that names a queue in another process: `process:CMD ARGS`. */
export const PROCESS_PREFIX = 'process:';

/** A child started only to be asked something and closed. */
const quiet = { now: () => Date.now(), stderr: 'inherit' as const };

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
      return `${hello().name} ${hello().version} (process protocol 1)`;
    },
    get capabilities() {
      return hello().capabilities;
    },
    soundness: 'sound',
    locatorKind: 'file',
    async preflight() {
      const { channel } = await startChild(argv, quiet);
      await channel.close();
    },
    async provision(request) {
      const { channel, hello: said } = await startChild(argv, quiet);
      let locator: string;
      let where: string;
      try {
        const body = await channel.request('provision', { run_dir: request.runDir, run_id: request.runId });
        locator = text(body, 'locator', 'the answer to provision');
        where = typeof body.where === 'string' ? body.where : locator;
      } catch (error) {
        throw new HelloError(
          `${shownCommand(command)} could not provision a queue in ${request.runDir}: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        await channel.close();
      }
      if (said.capabilities.sagaStore === 'in-queue') return { locator, env: {}, where, teardown: async () => undefined };
      // Made now, before the drill's processes start and race to make it.
      FileSagaStore.open(sagaFileFor(locator), systemClock()).close();
      return { locator, env: {}, where: `${where} (saga: ${sagaFileFor(locator)})`, teardown: async () => undefined };
    },
    connect: (locator, options) => connectProcess(argv, locator, options),
    fit: (demands) => fitChild(hello(), command, demands),
  };
}
