import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROTOCOL_SCHEMA_FILE, protocolJsonSchema, renderProtocolJsonSchema } from '../../../src/adapters/process/protocol-json-schema.js';
import { WIRE_OPS } from '../../../src/adapters/process/wire-schemas.js';
import { schemaCommand } from '../../../src/cli/commands/schema.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const COMMITTED = join(ROOT, PROTOCOL_SCHEMA_FILE);

type JsonObject = Record<string, any>;

/** Every `$ref` anywhere in `value`. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner)));
}

describe('protocol.schema.json', () => {
  it('the committed file is the schema generated from src/adapters/process/wire-schemas.ts', () => {
    const committed = existsSync(COMMITTED) ? readFileSync(COMMITTED, 'utf8') : '(missing)';
    expect(
      committed,
      `${PROTOCOL_SCHEMA_FILE} is out of date with src/adapters/process/wire-schemas.ts; regenerate it at the repository root: ` +
        'npm run build && node dist/cli/main.js schema --protocol --write',
    ).toBe(renderProtocolJsonSchema());
  });

  it('is shipped with the package, as scenarios.schema.json is', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as JsonObject;
    expect(pkg.files).toContain(PROTOCOL_SCHEMA_FILE);
    expect(pkg.exports[`./${PROTOCOL_SCHEMA_FILE}`]).toBe(`./${PROTOCOL_SCHEMA_FILE}`);
  });

  it('is draft-07, named, two-space JSON with a final newline, saying how it is made', () => {
    const schema = protocolJsonSchema();
    expect(schema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#', $id: 'urn:queue-drill:process-protocol:2' });
    expect(Object.keys(schema).slice(0, 4)).toEqual(['$schema', '$id', 'title', 'description']);
    expect(schema.description).toContain('queue-drill schema --protocol --write');
    const text = renderProtocolJsonSchema();
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')[1]).toMatch(/^ {2}"\$schema"/);
  });

  it('defines a request and an ok body for every op, and a line as a request, an answer or a deliver event', () => {
    const schema = protocolJsonSchema() as JsonObject;
    for (const op of Object.keys(WIRE_OPS)) {
      expect(schema.definitions[`request.${op}`].properties.op).toEqual({ type: 'string', const: op });
      expect(schema.definitions[`ok.${op}`], op).toBeDefined();
    }
    expect(schema.anyOf).toEqual([{ $ref: '#/definitions/request' }, { $ref: '#/definitions/answer' }, { $ref: '#/definitions/deliver' }]);
    expect(schema.definitions.deliver.properties.delivery).toEqual({ $ref: '#/definitions/claim' });
    expect(schema.definitions.job.properties.status).toEqual({ $ref: '#/definitions/status' });
    expect(schema.definitions.status.enum).toEqual(['pending', 'running', 'retry', 'done', 'review', 'compensating']);
  });

  it('refers only to its own definitions, and each definition says what it is', () => {
    const schema = protocolJsonSchema() as JsonObject;
    const missing = refsIn(schema).filter((ref) => !(ref.startsWith('#/definitions/') && ref.slice('#/definitions/'.length) in schema.definitions));
    expect(missing).toEqual([]);
    for (const [id, definition] of Object.entries(schema.definitions as JsonObject)) {
      expect(definition.$id, id).toBeUndefined();
      expect(definition.description, id).toEqual(expect.any(String));
    }
  });
});

describe('queue-drill schema --protocol', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('prints the schema', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    await schemaCommand.run({ write: false, protocol: true });
    expect(out.mock.calls.map(([chunk]) => String(chunk)).join('')).toBe(renderProtocolJsonSchema());
  });

  it('--write writes protocol.schema.json in the current directory and says where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'qd-protocol-schema-'));
    const before = process.cwd();
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      process.chdir(dir);
      await schemaCommand.run({ write: true, protocol: true });
    } finally {
      process.chdir(before);
    }
    try {
      expect(readFileSync(join(dir, PROTOCOL_SCHEMA_FILE), 'utf8')).toBe(renderProtocolJsonSchema());
      expect(existsSync(join(dir, 'scenarios.schema.json'))).toBe(false);
      expect(String(out.mock.calls[0]![0])).toMatch(new RegExp(`^wrote .*${PROTOCOL_SCHEMA_FILE}\\n$`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
