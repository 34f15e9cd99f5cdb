import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SCENARIO_SCHEMA_FILE, scenarioJsonSchema } from '../../src/scenarios/json-schema.js';
import { BUILT_IN_DEFAULTS } from '../../src/scenarios/schema.js';

const COMMITTED = join(import.meta.dirname, '..', '..', SCENARIO_SCHEMA_FILE);

type JsonObject = Record<string, any>;

/** Every property of a JSON Schema, wherever it is (nested objects, list items, union branches, maps), by its path. */
function propertiesOf(node: unknown, path = '$'): Array<{ path: string; schema: JsonObject }> {
  if (Array.isArray(node)) return node.flatMap((item, index) => propertiesOf(item, `${path}[${index}]`));
  if (node === null || typeof node !== 'object') return [];
  const found: Array<{ path: string; schema: JsonObject }> = [];
  for (const [key, value] of Object.entries(node as JsonObject)) {
    if (key === 'properties') {
      for (const [name, schema] of Object.entries(value as JsonObject)) {
        found.push({ path: `${path}.${name}`, schema }, ...propertiesOf(schema, `${path}.${name}`));
      }
    } else {
      found.push(...propertiesOf(value, `${path}.${key}`));
    }
  }
  return found;
}

const undescribed = (schema: unknown) =>
  propertiesOf(schema)
    .filter(({ schema: property }) => typeof property.description !== 'string' || property.description.trim() === '')
    .map(({ path }) => path);

/** A built-in default as a description words it: `{ after_ms: 20, max: 10 }`, `{}`, `reference`, `400`. */
function defaultInWords(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const entries = Object.entries(value);
  return entries.length === 0 ? '{}' : `{ ${entries.map(([key, inner]) => `${key}: ${defaultInWords(inner)}`).join(', ')} }`;
}

describe('every property of scenarios.schema.json has a description', () => {
  test.each([
    { which: 'the schema generated in-process', schema: () => scenarioJsonSchema() },
    { which: `the committed ${SCENARIO_SCHEMA_FILE}`, schema: () => JSON.parse(readFileSync(COMMITTED, 'utf8')) },
  ])('in $which', ({ schema }) => {
    const walked = schema();
    // A walk that finds nothing would pass vacuously: the file has well over a hundred properties.
    expect(propertiesOf(walked).length).toBeGreaterThan(100);
    expect(undescribed(walked), 'properties without a description').toEqual([]);
  });

  test("a setting's description states its built-in default, and a bounded number's its range", () => {
    const settings = (scenarioJsonSchema() as JsonObject).properties.defaults.properties as JsonObject;
    for (const [key, value] of Object.entries(BUILT_IN_DEFAULTS)) {
      expect(settings[key].description, key).toContain(`Default ${defaultInWords(value)}.`);
    }
    // A bounded integer without a maximum of its own is bounded by the largest safe integer, which no description need state.
    const bounded = propertiesOf(scenarioJsonSchema()).filter(
      ({ schema }) => schema.minimum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER,
    );
    expect(bounded.length).toBeGreaterThan(10);
    for (const { path, schema } of bounded) expect(schema.description, path).toContain(`${schema.minimum} to ${schema.maximum}`);
  });
});
