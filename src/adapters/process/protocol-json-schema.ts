import * as z from 'zod';
import { PROTOCOL_VERSION } from './protocol.js';
import { WIRE_REGISTRY } from './wire-schemas.js';

/*
 * The JSON Schema of every message of the process protocol, for a queue author
 * in any language (a validator in their own tests, a code generator).
 * Generated from the zod schemas protocol-check holds children to
 * (wire-schemas.ts), never written by hand, so the file and the check cannot
 * disagree; a test fails when the committed file is stale.
 */

/** The file name, at the repository root beside scenarios.schema.json. */
export const PROTOCOL_SCHEMA_FILE = 'protocol.schema.json';

/** Where a named schema lives in the file: definitions, by its id in the registry. */
const definitionOf = (id: string) => `#/definitions/${id}`;

/** The JSON Schema of the protocol's messages: a line is a request, an answer or a deliver event; definitions name every part. */
export function protocolJsonSchema(): Record<string, unknown> {
  // Draft-07, as scenarios.schema.json: the validators of most languages speak it.
  const { schemas } = z.toJSONSchema(WIRE_REGISTRY, { target: 'draft-07', uri: definitionOf, metadata: WIRE_REGISTRY });
  const definitions = Object.fromEntries(
    // Each without the draft and the id the registry mode gives it (the file's own say both); its description first, for a reader.
    Object.entries(schemas).map(([id, { $schema: _draft, $id: _id, description, ...schema }]) => [id, { description, ...schema }] as const),
  );
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: `urn:queue-drill:process-protocol:${PROTOCOL_VERSION}`,
    title: 'queue-drill process protocol',
    description:
      `The messages of queue-drill's process protocol, version ${PROTOCOL_VERSION} (docs/protocol.md): one JSON object a line, ` +
      'a request (drill to child), an answer or a deliver event (child to drill). ' +
      'Generated from src/adapters/process/wire-schemas.ts by `queue-drill schema --protocol --write`; do not edit by hand. ' +
      "An ok answer's body is that of the op its request named: definitions/ok.OP (definitions/request.OP is the request). " +
      'Objects may carry fields the protocol does not name. ' +
      'queue-drill protocol-check holds a child to these and to what a schema cannot say: one job per key, fencing by epoch, ' +
      'refusals in the history, the work loop, exiting when stdin closes.',
    anyOf: [{ $ref: definitionOf('request') }, { $ref: definitionOf('answer') }, { $ref: definitionOf('deliver') }],
    definitions,
  };
}

/** The schema as written to protocol.schema.json: two-space JSON and a final newline. */
export function renderProtocolJsonSchema(): string {
  return `${JSON.stringify(protocolJsonSchema(), null, 2)}\n`;
}
