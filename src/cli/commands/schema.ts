import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand } from '../command.js';

/**
 * `queue-drill schema`: the JSON Schema of scenarios.yaml for editors; --protocol, that of the process protocol's messages
 * for a queue author in any language; --write refreshes the file (scenarios.schema.json, protocol.schema.json).
 */
export const schemaCommand = defineCommand({
  name: 'schema',
  describe: 'print the JSON Schema of scenarios.yaml (or, with --protocol, of the process protocol), or write it in the current directory',
  options: {
    write: {
      type: 'boolean',
      default: false,
      describe: 'write scenarios.schema.json (protocol.schema.json with --protocol) in the current directory instead of printing it',
    },
    protocol: {
      type: 'boolean',
      default: false,
      describe: "the schema of the process protocol's messages (docs/protocol.md) instead of scenarios.yaml's",
    },
  },
  async run(args) {
    const { text, file } = args.protocol ? await protocolSchema() : await scenarioSchema();
    if (!args.write) {
      process.stdout.write(text);
      return;
    }
    const path = resolve(file);
    writeFileSync(path, text);
    process.stdout.write(`wrote ${path}\n`);
  },
});

async function scenarioSchema(): Promise<{ text: string; file: string }> {
  const { renderScenarioJsonSchema, SCENARIO_SCHEMA_FILE } = await import('../../scenarios/json-schema.js');
  return { text: renderScenarioJsonSchema(), file: SCENARIO_SCHEMA_FILE };
}

async function protocolSchema(): Promise<{ text: string; file: string }> {
  const { renderProtocolJsonSchema, PROTOCOL_SCHEMA_FILE } = await import('../../adapters/process/protocol-json-schema.js');
  return { text: renderProtocolJsonSchema(), file: PROTOCOL_SCHEMA_FILE };
}
