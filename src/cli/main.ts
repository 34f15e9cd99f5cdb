#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { demoCommand } from './commands/demo.js';
import { keyCommand } from './commands/key.js';
import { producerCommand } from './commands/producer.js';
import { workerCommand } from './commands/worker.js';
import { EXIT, exitCodeFor } from './errors.js';

/** The one place errors become exit codes and messages. */
async function main(argv: string[]): Promise<void> {
  try {
    await yargs(argv)
      .scriptName('queue-drill')
      .command(keyCommand)
      .command(workerCommand)
      .command(producerCommand)
      .command(demoCommand)
      .demandCommand(1, 'name a command')
      .strict()
      .fail((message, error) => {
        if (error) throw error;
        process.stderr.write(`queue-drill: ${message}\nRun queue-drill --help for the commands and their options.\n`);
        process.exit(EXIT.badInput);
      })
      .help()
      .parseAsync();
  } catch (error) {
    const code = exitCodeFor(error);
    const text = error instanceof Error ? error.message : String(error);
    const name = typeof error === 'object' && error !== null && 'code' in error ? ` [${String(error.code)}]` : '';
    process.stderr.write(`queue-drill: ${text}${name}\n`);
    process.exitCode = code;
  }
}

await main(hideBin(process.argv));
