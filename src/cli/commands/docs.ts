import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';

/** `queue-drill docs`: the generated page of fault actions; --write refreshes docs/faults.md. */
export const docsCommand = defineCommand({
  name: 'docs',
  describe: 'print the page of fault actions (docs/faults.md), generated from their registries, or write it',
  options: {
    write: { type: 'boolean', default: false, describe: 'write docs/faults.md under the current directory instead of printing it' },
  },
  async run(args) {
    const { renderFaultDocs, FAULT_DOCS_FILE } = await import('../fault-docs.js');
    const text = renderFaultDocs();
    if (!args.write) {
      process.stdout.write(text);
      return;
    }
    const path = resolve(FAULT_DOCS_FILE);
    writeFileSync(path, text);
    process.stdout.write(`wrote ${path}\n`);
  },
});
