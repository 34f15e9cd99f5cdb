import { describe, expect, it } from 'vitest';
import { FIELDS_BEGIN, FIELDS_END, renderScenarioFields, SCENARIO_DOCS_FILE, withScenarioFields } from '../../src/cli/scenario-docs.js';
import { scenarioJsonSchema } from '../../src/scenarios/json-schema.js';
import { parseScenarioText, ScenarioFileError } from '../../src/scenarios/load.js';
import { resolveScenarios } from '../../src/scenarios/resolve.js';
import { firstScenario, scenarioPage, yamlBlocks } from './page-examples.js';

type Json = Record<string, any>;

/** Every property name of a JSON Schema, wherever it is. */
function propertyNames(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(propertyNames);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node as Json).flatMap(([key, value]) =>
    key === 'properties' ? Object.entries(value as Json).flatMap(([name, inner]) => [name, ...propertyNames(inner)]) : propertyNames(value),
  );
}

/** A part of a file, as the page shows it (`jobs:` of a scenario, `defaults:` of a file), made a whole file to load. */
function asFile(yaml: string): string {
  if (/^version: 1$/m.test(yaml)) return yaml;
  const scenario = '  - name: example\n    description: a part of a file, shown on the page\n';
  const jobs = '    jobs: [{ plan: write-file, expect: done }]\n';
  if (/^(defaults|plans):/.test(yaml)) return `version: 1\n${yaml}scenarios:\n${scenario}${jobs}`;
  const inScenario = yaml.replace(/^/gm, '    ').trimEnd();
  if (/^jobs:/.test(yaml)) return `version: 1\nscenarios:\n${scenario}${inScenario}\n`;
  if (/^workers:/.test(yaml)) return `version: 1\nscenarios:\n${scenario}${jobs}${inScenario}\n`;
  throw new Error(`a yaml block of the page that this test cannot place in a file:\n${yaml}`);
}

describe('docs/scenarios.md', () => {
  it('holds the field tables generated from the schema (regenerate: npm run build && node dist/cli/main.js docs --write)', () => {
    const page = scenarioPage();
    expect(page, `${SCENARIO_DOCS_FILE} is out of date with src/scenarios/schema.ts`).toBe(withScenarioFields(page));
  });

  it('lists every property of the schema in its tables, each with its description', () => {
    const tables = renderScenarioFields();
    const names = new Set(propertyNames(scenarioJsonSchema()));
    expect(names.size).toBeGreaterThan(50);
    for (const name of names) expect(tables, name).toMatch(new RegExp(`\\| \`([a-z_]+(\\[\\])?\\.)*${name}\` \\|`));
    // Every row ends in a description: no empty third cell.
    expect(tables).not.toMatch(/\| {2}\|$/m);
  });

  it('refuses a page without its markers rather than dropping the tables', () => {
    expect(() => withScenarioFields('# a page\n')).toThrow(/markers/);
    expect(withScenarioFields(`before\n${FIELDS_BEGIN}\nstale\n${FIELDS_END}\nafter\n`)).toBe(`before\n${renderScenarioFields()}\nafter\n`);
  });

  it('has a first scenario, under its heading, that the loader takes as written', () => {
    const file = parseScenarioText(firstScenario(scenarioPage()), 'first scenario');
    expect(file.scenarios.map((s) => s.name)).toEqual(['my-first-drill']);
  });

  it("shows only examples that load and resolve, but for the one that shows the loader's problems", () => {
    const blocks = yamlBlocks(scenarioPage());
    expect(blocks.length).toBeGreaterThan(5);
    for (const { heading, yaml } of blocks) {
      if (heading === 'Every problem at once') {
        // The page prints three problems for this file, all from one load: the loader must still find those three.
        const problems = (() => {
          try {
            parseScenarioText(yaml, 'problems');
          } catch (error) {
            if (error instanceof ScenarioFileError) return error.issues.map((issue) => issue.path);
            throw error;
          }
          return [];
        })();
        expect(problems).toEqual(['defaults.queue', 'scenarios[0].jobs[0].plan', 'scenarios[0].faults[0].world.step']);
        continue;
      }
      const file = parseScenarioText(asFile(yaml), heading);
      expect(resolveScenarios(file, { seed: 1 }).length, heading).toBeGreaterThan(0);
    }
  });
});
