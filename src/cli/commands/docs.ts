import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';

/**
 * `queue-drill docs`: the generated page of fault actions; --write refreshes docs/faults.md, and the generated field
 * tables of docs/scenarios.md (the page's prose is a person's, so only the part between its markers is rewritten).
 */
export const docsCommand = defineCommand({
  name: 'docs',
  describe:
    'print the page of fault actions (docs/faults.md), generated from their registries, or write it and the field tables of docs/scenarios.md',
  options: {
    write: {
      type: 'boolean',
      default: false,
      describe: 'write docs/faults.md and the generated field tables of docs/scenarios.md under the current directory instead of printing',
    },
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
    const { withScenarioFields, SCENARIO_DOCS_FILE } = await import('../scenario-docs.js');
    const scenarios = resolve(SCENARIO_DOCS_FILE);
    writeFileSync(scenarios, withScenarioFields(readFileSync(scenarios, 'utf8')));
    process.stdout.write(`wrote ${scenarios}\n`);
  },
});
