import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { schemaCommand } from '../../src/cli/commands/schema.js';
import { FAULT_ACTION_NAMES } from '../../src/faults/actions/index.js';
import { renderScenarioJsonSchema, SCENARIO_SCHEMA_FILE, scenarioJsonSchema } from '../../src/scenarios/json-schema.js';
import { WORLD_FAULT_ACTION_NAMES } from '../../src/world/fault-actions/index.js';

const COMMITTED = join(import.meta.dirname, '..', '..', SCENARIO_SCHEMA_FILE);

type JsonObject = Record<string, any>;

describe('scenarios.schema.json', () => {
  test('the committed file is the schema generated from src/scenarios/schema.ts', () => {
    const committed = existsSync(COMMITTED) ? readFileSync(COMMITTED, 'utf8') : '(missing)';
    expect(
      committed,
      `${SCENARIO_SCHEMA_FILE} is out of date with src/scenarios/schema.ts; regenerate it at the repository root: npm run build && node dist/cli/main.js schema --write`,
    ).toBe(renderScenarioJsonSchema());
  });

  test('is written for editors: draft-07, named, two-space JSON with a final newline', () => {
    const schema = scenarioJsonSchema();
    expect(schema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', $id: expect.any(String), title: 'queue-drill scenarios' });
    expect(schema.description).toContain('queue-drill schema --write');
    expect(Object.keys(schema).slice(0, 4)).toEqual(['$schema', '$id', 'title', 'description']);
    const text = renderScenarioJsonSchema();
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^ {2}"\$schema"/);
  });

  test('describes the input: a field with a default is optional, an unknown key is refused', () => {
    const schema = scenarioJsonSchema() as JsonObject;
    expect(schema.required).toEqual(['version', 'scenarios']);
    expect(schema.additionalProperties).toBe(false);
    const scenario = schema.properties.scenarios.items as JsonObject;
    expect(scenario.required).toEqual(['name', 'description', 'jobs']);
    expect(scenario.additionalProperties).toBe(false);
    expect(scenario.properties.workers.default).toBe(2);
  });

  test('carries the allowed values, so an editor can offer them', () => {
    const scenario = (scenarioJsonSchema() as JsonObject).properties.scenarios.items as JsonObject;
    const [point, world] = scenario.properties.faults.items.anyOf as JsonObject[];
    // The registries' order, whatever actions they hold: adding one is its file and its registry entry.
    expect(point!.properties.action.enum).toEqual(FAULT_ACTION_NAMES);
    expect(world!.properties.action.enum).toEqual(WORLD_FAULT_ACTION_NAMES);
    expect(point!.properties.action.enum).toContain('crash');
    expect(world!.properties.action.enum).toContain('drop');
    expect(scenario.properties.invariants.anyOf[1].items.enum).toContain('no-duplicate-effect');
  });
});

describe('queue-drill schema', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  test('prints the schema', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    await schemaCommand.run({ write: false, protocol: false });
    expect(out.mock.calls.map(([chunk]) => String(chunk)).join('')).toBe(renderScenarioJsonSchema());
  });

  test('--write writes scenarios.schema.json in the current directory and says where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qd-schema-'));
    const before = process.cwd();
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      process.chdir(dir);
      await schemaCommand.run({ write: true, protocol: false });
    } finally {
      process.chdir(before);
    }
    try {
      expect(readFileSync(join(dir, SCENARIO_SCHEMA_FILE), 'utf8')).toBe(renderScenarioJsonSchema());
      expect(String(out.mock.calls[0]![0])).toMatch(new RegExp(`^wrote .*${SCENARIO_SCHEMA_FILE}\\n$`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
