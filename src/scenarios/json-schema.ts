import * as z from 'zod';
import { PlanInputSchema } from '../saga/plan-input.js';
import { ScenarioFileSchema } from './schema.js';

/*
 * The JSON Schema editors use to check scenarios.yaml as it is typed (with
 * `# yaml-language-server: $schema=./scenarios.schema.json` on its first line).
 * Generated from ScenarioFileSchema, never written by hand, so the editor and
 * the loader cannot disagree; a test fails when the committed file is stale.
 */

/** The file name, at the repository root beside scenarios.yaml. */
export const SCENARIO_SCHEMA_FILE = 'scenarios.schema.json';

/**
 * Descriptions for fields whose schema lives outside src/scenarios (a plan's
 * own shape, src/saga/plan-input.ts, which describes its steps' fields but
 * not the list of steps): given here so every property of the file has one.
 * A description the schema itself carries wins.
 */
const DESCRIBED_HERE = new Map<z.core.$ZodType, string>([
  [PlanInputSchema.shape.steps, "The plan's steps, run in order: 1 to 50, each one call to a tool of the world. Required."],
]);

/** The JSON Schema of scenarios.yaml, as an editor should see it. */
export function scenarioJsonSchema(): Record<string, unknown> {
  // The input side: a field with a default is optional to the author, though always set once loaded.
  // Draft-07 because the YAML language server (VS Code, and editors on its server) validates with draft-07.
  const { $schema, ...schema } = z.toJSONSchema(ScenarioFileSchema, {
    io: 'input',
    target: 'draft-07',
    override: ({ zodSchema, jsonSchema }) => {
      const description = DESCRIBED_HERE.get(zodSchema);
      if (description !== undefined) jsonSchema.description ??= description;
    },
  });
  return {
    $schema,
    $id: 'urn:queue-drill:scenarios-file:1',
    title: 'queue-drill scenarios',
    description:
      'scenarios.yaml for queue-drill: plans, and the drills run against a job queue (workers, jobs, faults, invariants). ' +
      'Generated from src/scenarios/schema.ts by `queue-drill schema --write`; do not edit by hand. ' +
      "A step of a plan names a tool and its args; the world's catalogue gives the rest unless the step says otherwise. " +
      "queue-drill also checks what a JSON Schema cannot: that named plans exist (in the file or the library), that a step's tool does, " +
      'that scenario names are unique, that the queues, jobs and steps faults name exist, and that each fault has the fields its action needs.',
    ...schema,
  };
}

/** The schema as written to scenarios.schema.json: two-space JSON and a final newline. */
export function renderScenarioJsonSchema(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
