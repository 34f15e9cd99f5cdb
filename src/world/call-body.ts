import * as z from 'zod';
import { toolMetadata } from './catalogue.js';
import type { WorldCall } from './effects.js';
import { badRequest, issuesOf, WorldError } from './errors.js';
import type { CallMeta } from './ledger/calls-table.js';

/*
 * The body of POST /call, validated in three steps (the envelope, the tool,
 * the tool's arguments) so an error names the first thing wrong. A rejected
 * body still yields what could be read of it (tool, key, meta): the call
 * table records even the calls it refused, which is how a drill finds them.
 */

const CallBodySchema = z.strictObject({
  tool: z.string().min(1),
  key: z.string().min(1).max(512),
  args: z.record(z.string(), z.unknown()),
  meta: z.strictObject({
    job: z.union([z.string().min(1), z.int()]).transform(String),
    step: z.string().min(1),
    attempt: z.int().min(0),
    worker: z.string().min(1),
    pid: z.int().min(0),
    fence: z.int().min(0).optional(),
  }),
});

/** A call body, validated: the call, or why not with whatever could be read of it. */
export type ParsedCall =
  | { ok: true; call: WorldCall }
  | { ok: false; error: WorldError; tool: string | null; key: string | null; meta: CallMeta | null };

// Enough of a rejected body to find it in the call table; capped, since it was not validated.
function loose(value: unknown, name: string): string | null {
  const field = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
  return typeof field === 'string' ? field.slice(0, 200) : null;
}

/** Validates a POST /call body: the envelope, the tool, then the tool's arguments. */
export function parseCall(text: string): ParsedCall {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, error: new WorldError('WORLD_BAD_JSON', 'the body is not JSON', 400), tool: null, key: null, meta: null };
  }
  const tool = loose(body, 'tool');
  const key = loose(body, 'key');
  const envelope = CallBodySchema.safeParse(body);
  if (!envelope.success) return { ok: false, error: badRequest('WORLD_BAD_REQUEST', 'call', issuesOf(envelope.error.issues)), tool, key, meta: null };
  const { meta } = envelope.data;
  const found = toolMetadata(envelope.data.tool);
  if (!found) {
    const error = badRequest('WORLD_UNKNOWN_TOOL', 'call', [{ path: 'tool', message: `unknown tool ${JSON.stringify(tool)}` }]);
    return { ok: false, error, tool, key, meta };
  }
  const args = found.args.safeParse(envelope.data.args);
  if (!args.success)
    return { ok: false, error: badRequest('WORLD_BAD_REQUEST', `${found.name} call`, issuesOf(args.error.issues, 'args')), tool, key, meta };
  // The arguments as sent (extra fields included): they are what the digest covers.
  return { ok: true, call: { tool: found.name, key: envelope.data.key, args: envelope.data.args, meta } };
}
