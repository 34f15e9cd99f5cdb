import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';

/** `queue-drill schema`: the JSON Schema of scenarios.yaml for editors; --write refreshes scenarios.schema.json. */
export const schemaCommand = defineCommand({
  name: 'schema',
  describe: 'print the JSON Schema of scenarios.yaml, or write it to scenarios.schema.json in the current directory',
  options: {
    write: { type: 'boolean', default: false, describe: 'write scenarios.schema.json in the current directory instead of printing it' },
  },
  async run(args) {
    const { renderScenarioJsonSchema, SCENARIO_SCHEMA_FILE } = await import('../../scenarios/json-schema.js');
    const text = renderScenarioJsonSchema();
    if (!args.write) {
      process.stdout.write(text);
      return;
    }
    const path = resolve(SCENARIO_SCHEMA_FILE);
    writeFileSync(path, text);
    process.stdout.write(`wrote ${path}\n`);
  },
});
