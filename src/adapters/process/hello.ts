import { spawnSync } from 'node:child_process';
import { InputError } from '../../kernel/errors.js';
import { EVIDENCE_KINDS } from '../../kernel/vocabulary.js';
import type { Capabilities, ServerSettings } from '../../port/adapter.js';
import type { QueueOptionSpecs } from '../../port/queue-options.js';
import { ChildChannel } from './child-channel.js';
import { parseChildOptions } from './child-options.js';
import { shownCommand } from './command-line.js';
import { count, MalformedMessageError, PROTOCOL_VERSION, PROTOCOL_VERSIONS, ProtocolError, type ProtocolVersion, record, text } from './protocol.js';
import type { WireOpName } from './wire-schemas.js';

/** The ops every child must answer: without them no drill can run. */
export const REQUIRED_OPS = [
  'hello',
  'provision',
  'open',
  'enqueue',
  'work',
  'stop_work',
  'settle',
  'heartbeat',
  'snapshot',
  'progress',
] as const satisfies readonly WireOpName[];

/** The ops a protocol 2 child answers besides: removing its queue from the server, and saying whether it can run a drill. */
export const REQUIRED_OPS_2 = ['teardown', 'fit'] as const satisfies readonly WireOpName[];

/** The servers a child may need, as its hello names them, and the drill's name for each. */
export const SERVER_NEEDS = { pg_url: 'pgUrl', redis_url: 'redisUrl' } as const satisfies Record<string, keyof ServerSettings>;

/** The optional parts of the contract, each the ops a child must answer to offer it. */
export const OPTIONAL_PARTS = {
  manual: ['claim', 'heartbeat', 'settle'],
  takeover: ['expire_lease', 'expired_leases', 'release_expired', 'maintain'],
  compensation: ['claim_compensation', 'finish_compensation'],
  human: ['requeue_from_review'],
  saga: ['append_tx', 'read_tx', 'record_incident', 'incidents'],
} as const satisfies Record<string, readonly WireOpName[]>;

/** One optional part of the contract. */
export type OptionalPart = keyof typeof OPTIONAL_PARTS;

/** What a child says of itself in its `hello`: who it is, what it can show, which ops it answers, its limits. */
export interface ChildHello {
  /** The protocol version the child speaks. */
  protocol: ProtocolVersion;
  /** What its locator names: a file in the run directory (protocol 1's only kind), or a name on a server (a schema, a key prefix, a vhost). */
  locatorKind: 'file' | 'name';
  /** The servers its queue lives on, which the drill names in provision, open and teardown (protocol 2). */
  needs: readonly (keyof ServerSettings)[];
  name: string;
  version: string;
  description: string;
  capabilities: Capabilities;
  ops: ReadonlySet<string>;
  /** The queue's own options a user may set (protocol 2's `options`); none when absent. */
  options: QueueOptionSpecs;
  /** The shortest lease it can keep, the largest attempt budget, and the tools its jobs may call (absent: any). */
  limits: { minLeaseMs: number; maxAttempts: number; tools?: readonly string[] };
}

/** A command that does not start, or does not say hello as the protocol says: the drill cannot use it (exit 2). */
export class HelloError extends InputError {
  readonly code = 'QD_PROCESS_HELLO';
}

/** Whether a child answers every op of `part`. */
export function offers(hello: ChildHello, part: OptionalPart): boolean {
  return OPTIONAL_PARTS[part].every((op) => hello.ops.has(op));
}

/** A `hello` answer's body, checked; throws MalformedMessageError naming the field that is wrong. */
export function parseHello(body: Record<string, unknown>): ChildHello {
  const where = 'hello';
  const protocol = body.protocol as ProtocolVersion;
  if (!PROTOCOL_VERSIONS.includes(protocol))
    throw new MalformedMessageError(
      `hello.protocol is ${JSON.stringify(body.protocol)}; this drill speaks protocol ${PROTOCOL_VERSIONS.join(' or ')}`,
    );
  const caps = record(body.capabilities, 'hello.capabilities');
  const given = record(caps.evidence, 'hello.capabilities.evidence');
  const evidence = {} as Record<(typeof EVIDENCE_KINDS)[number], true | string>;
  for (const kind of EVIDENCE_KINDS) {
    // The drill's own worker renews for the child, and tells the harness each lease end the child grants: never the child's to claim.
    if (kind === 'renewals') {
      evidence[kind] = true;
      continue;
    }
    const value = given[kind];
    if (value !== true && (typeof value !== 'string' || value === ''))
      throw new MalformedMessageError(`hello.capabilities.evidence.${kind} must be true or a reason (text), got ${JSON.stringify(value)}`);
    evidence[kind] = value;
  }
  const takeover = caps.takeover;
  if (takeover !== 'coordinator' && takeover !== 'queue')
    throw new MalformedMessageError(`hello.capabilities.takeover must be "coordinator" or "queue", got ${JSON.stringify(takeover)}`);
  // Absent: claimed (the contract's stale-write check then judges it); else true or the reason it is not kept.
  const fencing = caps.fencing ?? true;
  if (fencing !== true && (typeof fencing !== 'string' || fencing === ''))
    throw new MalformedMessageError(`hello.capabilities.fencing must be true or a reason (text), got ${JSON.stringify(fencing)}`);
  const clock = caps.clock;
  if (clock !== 'caller' && clock !== 'server')
    throw new MalformedMessageError(`hello.capabilities.clock must be "caller" or "server", got ${JSON.stringify(clock)}`);
  if (!Array.isArray(body.ops) || !body.ops.every((op) => typeof op === 'string'))
    throw new MalformedMessageError('hello.ops must be a list of op names');
  const ops = new Set(body.ops as string[]);
  const missing = REQUIRED_OPS.filter((op) => !ops.has(op));
  if (missing.length > 0) throw new MalformedMessageError(`hello.ops lacks ${missing.join(', ')}, which every child must answer`);
  const missing2 = protocol === 2 ? REQUIRED_OPS_2.filter((op) => !ops.has(op)) : [];
  if (missing2.length > 0) throw new MalformedMessageError(`hello.ops lacks ${missing2.join(', ')}, which a protocol 2 child must answer`);
  const { locatorKind, needs } = whereItLives(body, protocol);
  const limits = record(body.limits ?? {}, 'hello.limits');
  const tools = limits.tools;
  if (tools !== undefined && (!Array.isArray(tools) || !tools.every((t) => typeof t === 'string')))
    throw new MalformedMessageError('hello.limits.tools must be a list of tool names');
  return {
    protocol,
    locatorKind,
    needs,
    name: text(body, 'name', where),
    version: text(body, 'version', where),
    description: typeof body.description === 'string' ? body.description : text(body, 'name', where),
    // In the child's store only if it says so and answers every saga op; else in the drill's file beside the run.
    capabilities: {
      evidence,
      fencing,
      sagaStore: caps.saga_store === 'in-queue' && OPTIONAL_PARTS.saga.every((op) => ops.has(op)) ? 'in-queue' : 'beside-the-run',
      takeover,
      compensation: OPTIONAL_PARTS.compensation.every((op) => ops.has(op))
        ? true
        : `the child answers no ${OPTIONAL_PARTS.compensation.join(' and ')}: it hands no saga to a compensator`,
      clock,
    },
    ops,
    options: protocol === 2 ? parseChildOptions(body.options) : {},
    limits: {
      minLeaseMs: limits.min_lease_ms === undefined ? 1 : count(limits, 'min_lease_ms', 'hello.limits'),
      maxAttempts: limits.max_attempts === undefined ? Number.MAX_SAFE_INTEGER : count(limits, 'max_attempts', 'hello.limits'),
      ...(tools === undefined ? {} : { tools: tools as string[] }),
    },
  };
}

/** Where a child's queue lives (protocol 2: `locator_kind`, `needs`); protocol 1's is always a file, on no server. */
function whereItLives(body: Record<string, unknown>, protocol: ProtocolVersion): Pick<ChildHello, 'locatorKind' | 'needs'> {
  if (protocol === 1) return { locatorKind: 'file', needs: [] };
  const kind = body.locator_kind ?? 'file';
  if (kind !== 'file' && kind !== 'name') throw new MalformedMessageError(`hello.locator_kind must be "file" or "name", got ${JSON.stringify(kind)}`);
  const needs = body.needs ?? [];
  const known = Object.keys(SERVER_NEEDS);
  if (!Array.isArray(needs) || !needs.every((need) => known.includes(need)))
    throw new MalformedMessageError(`hello.needs must be a list of ${known.join(', ')}, got ${JSON.stringify(needs)}`);
  return { locatorKind: kind, needs: [...new Set(needs as (keyof typeof SERVER_NEEDS)[])].map((need) => SERVER_NEEDS[need]) };
}

/** How long a child has to say hello (it may be slow to start on a loaded machine). */
const HELLO_TIMEOUT_MS = 15_000;

const known = new Map<string, ChildHello>();

/** The hello of `argv` already heard in this process, if any. */
export function knownHello(argv: readonly string[]): ChildHello | undefined {
  return known.get(JSON.stringify(argv));
}

/** Remembers a hello heard, so this process never starts a child only to ask again. */
export function rememberHello(argv: readonly string[], hello: ChildHello): ChildHello {
  known.set(JSON.stringify(argv), hello);
  return hello;
}

/**
 * The hello of `argv`, heard synchronously (a child started, asked, its stdin
 * closed), for what must be known before anything async can run: the
 * adapter's capabilities, name and version.
 */
export function helloSync(argv: readonly string[]): ChildHello {
  const cached = knownHello(argv);
  if (cached) return cached;
  const [program, ...args] = argv;
  const result = spawnSync(program!, args, {
    input: `${JSON.stringify({ id: 1, op: 'hello', now: Date.now(), protocol: PROTOCOL_VERSION })}\n`,
    timeout: HELLO_TIMEOUT_MS,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  if (result.error) throw new HelloError(`could not run ${shownCommand(argv)}: ${result.error.message}`);
  const line = result.stdout.split('\n').find((l) => l.trim() !== '');
  try {
    const answer = record(JSON.parse(line ?? 'null'), 'the answer to hello');
    if (answer.re !== 1 || answer.type !== 'ok') throw new MalformedMessageError(`the answer to hello is not ok: ${line}`);
    return rememberHello(argv, parseHello(record(answer.body, 'hello body')));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    const stderr = result.stderr.trim().split('\n').slice(-3).join(' | ');
    throw new HelloError(
      `${shownCommand(argv)} did not say hello as protocol ${PROTOCOL_VERSIONS.join(' or ')} asks: ${why}${stderr ? ` (stderr: ${stderr})` : ''}`,
    );
  }
}

/** The hello of a child already running on `channel`. */
export async function helloOn(channel: ChildChannel, argv: readonly string[]): Promise<ChildHello> {
  let body: Record<string, unknown>;
  try {
    // A busy machine (a larger time scale, a longer lease) waits as long for hello as for any answer.
    body = await channel.request('hello', { protocol: PROTOCOL_VERSION }, Math.max(HELLO_TIMEOUT_MS, channel.requestTimeoutMs));
  } catch (error) {
    const why = error instanceof ProtocolError ? error.message : String(error);
    throw new HelloError(`${shownCommand(argv)} did not say hello: ${why}`);
  }
  try {
    return rememberHello(argv, parseHello(body));
  } catch (error) {
    throw new HelloError(`${shownCommand(argv)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Starts a child of `argv`, hears its hello, and returns both (the caller closes the channel). */
export async function startChild(
  argv: readonly string[],
  options: ConstructorParameters<typeof ChildChannel>[1],
): Promise<{ channel: ChildChannel; hello: ChildHello }> {
  const channel = new ChildChannel(argv, options);
  try {
    return { channel, hello: await helloOn(channel, argv) };
  } catch (error) {
    await channel.close();
    throw error;
  }
}
