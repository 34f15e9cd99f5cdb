import { scenarioJsonSchema } from '../scenarios/json-schema.js';

/*
 * The field tables of docs/scenarios.md, written from the scenarios file's
 * JSON Schema (itself generated from src/scenarios/schema.ts), between two
 * markers in the page: the prose around them is a person's, the tables are
 * the schema's, so a field added or changed cannot be missing from the page
 * (a test compares the committed page with this).
 */

/** Where the page lives, from the repository root. */
export const SCENARIO_DOCS_FILE = 'docs/scenarios.md';

export const FIELDS_BEGIN =
  '<!-- BEGIN generated fields: written by `node dist/cli/main.js docs --write` from src/scenarios/schema.ts; do not edit by hand. -->';
export const FIELDS_END = '<!-- END generated fields -->';

/** A node of the JSON Schema, read as it comes: every key may be missing, and each is checked where it is read. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema node's keys hold anything; the walk checks each before use.
type Json = Record<string, any>;

/** A value as the page shows it: code. */
const code = (value: unknown): string => `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;

/** An enum this long is listed in the field's description instead of its value column. */
const LISTED_ENUM_MAX = 5;

/**
 * What a field holds, in a few words, from its JSON Schema: its kind and the bounds the schema checks. A value
 * never starts with code: the page's table of library plans is read as rows starting "| `name` | `" (plan-library.test.ts).
 */
function valueWords(node: Json): string {
  if (Array.isArray(node.anyOf)) {
    // A constant alternative reads as the exception it is (`restart: false`), after the shape.
    const branches = [...(node.anyOf as Json[])].sort((a, b) => Number(a.const !== undefined) - Number(b.const !== undefined));
    return branches.map((branch) => (branch.const === undefined ? valueWords(branch) : code(branch.const))).join(', or ');
  }
  if (node.const !== undefined) return `exactly ${code(node.const)}`;
  if (Array.isArray(node.enum))
    return node.enum.length <= LISTED_ENUM_MAX ? `one of ${node.enum.map(code).join(', ')}` : `one of ${node.enum.length} names`;
  if (Array.isArray(node.type)) return node.type.map((type: string) => valueWords({ type })).join(', or ');
  switch (node.type) {
    case 'integer':
      return `integer${bounds(node.minimum, node.maximum)}`;
    case 'number':
      return `number${bounds(node.minimum, node.maximum)}`;
    case 'string':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'null':
      return '`null`';
    case 'array': {
      const count = bounds(node.minItems, node.maxItems).trim();
      return `list of ${isObject(node.items) ? 'objects' : valueWords(node.items).replace(/^one of /, 'any of ')}${count === '' ? '' : ` (${count})`}`;
    }
    case 'object':
      return node.properties ? 'object' : `map of name → ${valueWords(node.additionalProperties ?? {})}`;
    default:
      return 'anything';
  }
}

/** Whether a list's items are objects (of one shape, or of several: a fault at a point or in the world). */
function isObject(node: Json): boolean {
  return Array.isArray(node.anyOf) ? node.anyOf.every(isObject) : node.type === 'object';
}

/** "1 to 32", "≥ 1", or nothing: a maximum of the largest safe integer is no bound a person needs. */
function bounds(min: number | undefined, max: number | undefined): string {
  const top = max !== undefined && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  if (min !== undefined && top !== undefined) return ` ${min} to ${top}`;
  if (min !== undefined && min > 0) return ` ≥ ${min}`;
  return top !== undefined ? ` ≤ ${top}` : '';
}

/** A table cell: one line, and a `|` that does not end it. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');

interface Section {
  title: string;
  /** The object whose properties the table lists. */
  node: Json;
  /** Its properties not listed here (another section's). */
  skip?: ReadonlySet<string>;
  /** Properties whose own fields are another section's: listed, not descended into. */
  shallow?: ReadonlySet<string>;
}

/** One row per property of `node`, then one per field of the objects it holds (`retry.base_ms`, `workers[].id`, `expect.status`). */
function rows(node: Json, prefix: string, section: Section): string[] {
  return Object.entries((node.properties ?? {}) as Record<string, Json>).flatMap(([name, field]) => {
    if (prefix === '' && section.skip?.has(name)) return [];
    const path = `${prefix}${name}`;
    const own = `| \`${path}\` | ${cell(valueWords(field))} | ${cell(field.description ?? '')} |`;
    return [own, ...(prefix === '' && section.shallow?.has(name) ? [] : nested(field, path, section))];
  });
}

/** The rows of the objects a field holds: its own fields, a list's items', each branch of a union's. */
function nested(field: Json, path: string, section: Section): string[] {
  if (Array.isArray(field.anyOf)) return field.anyOf.flatMap((branch: Json) => nested(branch, path, section));
  if (field.type === 'array' && field.items) return nested(field.items, `${path}[]`, section);
  if (field.type === 'object' && field.properties) return rows(field, `${path}.`, section);
  return [];
}

/** The sections of the page's tables, from the file's schema: the file, the settings, a scenario, a job, each kind of fault, a plan. */
function sections(): Section[] {
  const file = scenarioJsonSchema() as Json;
  const settings = file.properties.defaults as Json;
  const scenario = file.properties.scenarios.items as Json;
  const [pointFault, worldFault] = scenario.properties.faults.items.anyOf as Json[];
  return [
    { title: 'The file', node: file, shallow: new Set(['defaults', 'plans', 'scenarios']) },
    { title: 'Settings: under `defaults:` for every scenario of the file, or in a scenario for itself', node: settings },
    {
      title: 'A scenario (an item of `scenarios:`), besides the settings',
      node: scenario,
      skip: new Set(Object.keys(settings.properties)),
      shallow: new Set(['jobs', 'faults']),
    },
    { title: 'A group of jobs (an item of `jobs:`)', node: scenario.properties.jobs.items, shallow: new Set(['plan']) },
    { title: 'A fault at a named point in a process (an item of `faults:` with `at:`)', node: pointFault! },
    { title: 'A fault in the world, on matching calls (an item of `faults:` with `world:`)', node: worldFault! },
    { title: "A plan (under `plans:` by name, or a job's `plan:` written in place)", node: file.properties.plans.additionalProperties },
  ];
}

/** The generated part of the page: a table per section, between the markers. */
export function renderScenarioFields(): string {
  const tables = sections().flatMap((section) => [
    `### ${section.title}`,
    '',
    '| field | value | what it is |',
    '|---|---|---|',
    ...rows(section.node, '', section),
    '',
  ]);
  return [FIELDS_BEGIN, '', ...tables, FIELDS_END].join('\n');
}

/** `page` with its generated part rewritten; a page without both markers is refused, rather than the tables silently dropped. */
export function withScenarioFields(page: string): string {
  const begin = page.indexOf(FIELDS_BEGIN);
  const end = page.indexOf(FIELDS_END);
  if (begin === -1 || end < begin)
    throw new Error(`${SCENARIO_DOCS_FILE} lacks the markers of its generated fields (${FIELDS_BEGIN} … ${FIELDS_END})`);
  return page.slice(0, begin) + renderScenarioFields() + page.slice(end + FIELDS_END.length);
}
