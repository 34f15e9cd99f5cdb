import { PROCESS_PREFIX } from '../adapters/process/process-adapter.js';
import type { ServerSettings } from '../port/adapter.js';
import { queueOptionLine } from '../port/queue-options.js';
import { QUEUE_IMPLS, type QueueImpl } from '../queues/registry.js';

/*
 * What `--queue` accepts, for a person choosing one: each implementation
 * the registry has, what it is, what it needs to run, and its version.
 */

/**
 * What a queue is: the reference queue's design (sound: never flagged), a real
 * queue drilled to observe what it does, a broken variant (one plausible
 * mistake the drills must catch), or a queue in any language over the process
 * protocol.
 */
export type QueueKind = 'reference' | 'observed' | 'broken' | 'process';

/** One queue `--queue` can name, as `queue-drill queues` lists it. */
export interface QueueListing {
  name: string;
  aliases: string[];
  kind: QueueKind;
  description: string;
  /** For a broken variant: the invariants its mistake breaks (the self-test holds it to being caught by one). */
  breaks: string[];
  /** The servers it needs, each with where it is looked for; empty for a queue on a local file. */
  needs: string[];
  version: string;
  /** The queue's own options a user may set (--queue-option KEY=VALUE): each as `key (values; default d): what it does`. */
  options: string[];
}

const SERVERS: Record<keyof ServerSettings, string> = {
  pgUrl: 'PostgreSQL (--pg-url, else QD_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres)',
  redisUrl: 'Redis (--redis-url, else QD_REDIS_URL, else redis://127.0.0.1:6379)',
  amqpUrl: 'RabbitMQ (--amqp-url, else QD_AMQP_URL, else amqp://guest:guest@127.0.0.1:5672)',
  natsUrl: 'NATS with JetStream (--nats-url, else QD_NATS_URL, else nats://127.0.0.1:4222)',
};

function kindOf(impl: QueueImpl): QueueKind {
  if (impl.reference) return 'reference';
  switch (impl.soundness) {
    case 'broken':
      return 'broken';
    case 'observed':
      return 'observed';
    case 'sound':
      // A sound queue that is not the reference's design: only a process queue is, and it is listed as its own form.
      return 'process';
    default: {
      const never: never = impl.soundness;
      throw new Error(`unknown soundness ${String(never)}`);
    }
  }
}

/** Every queue the registry has, in its order, and the process form last. */
export function queueListings(impls: readonly QueueImpl[] = QUEUE_IMPLS): QueueListing[] {
  return [
    ...impls.map((impl) => ({
      name: impl.name,
      aliases: [...(impl.aliases ?? [])],
      kind: kindOf(impl),
      description: impl.description,
      breaks: [...(impl.breaks ?? [])],
      needs: (impl.needs ?? []).map((server) => SERVERS[server]),
      version: impl.version,
      options: Object.entries(impl.options ?? {}).map(([key, spec]) => `${queueOptionLine(key, spec)}: ${spec.describe}`),
    })),
    {
      name: `${PROCESS_PREFIX}CMD ARGS`,
      aliases: [],
      kind: 'process' as const,
      description:
        'a queue in any language, run as the command CMD ARGS speaking the process protocol (docs/protocol.md; ' +
        'check it with queue-drill protocol-check CMD ARGS); what it is and its version are what it answers',
      breaks: [],
      needs: ['what CMD needs'],
      version: 'its own',
      options: [],
    },
  ];
}

const HEADINGS: Record<QueueKind, string> = {
  reference: 'The reference queue (sound: the drills must never flag it)',
  observed: 'Real queues, observed (drilled to show what they do; compare them with queue-drill compare)',
  broken: 'Broken variants (one plausible mistake each; the self-test must catch every one)',
  process: 'Any queue, over the process protocol',
};

/** The listing as a person reads it: by kind, each queue with its version, what it needs, and what it is (for a variant: its mistake). */
export function renderQueueListings(listings: readonly QueueListing[], run: string): string {
  const lines = [`Every queue --queue accepts (e.g. ${run} --queue sketch-literal):`];
  for (const kind of Object.keys(HEADINGS) as QueueKind[]) {
    const ofKind = listings.filter((listing) => listing.kind === kind);
    if (ofKind.length === 0) continue;
    lines.push('', HEADINGS[kind]);
    for (const q of ofKind) {
      const aliases = q.aliases.length > 0 ? ` (also ${q.aliases.join(', ')})` : '';
      lines.push(`  ${q.name}${aliases}  ${q.version}`);
      lines.push(`      ${kind === 'broken' ? 'its mistake: ' : ''}${q.description}`);
      if (q.breaks.length > 0) lines.push(`      breaks: ${q.breaks.join(', ')}`);
      lines.push(`      needs: ${q.needs.length > 0 ? q.needs.join('; ') : 'no server (a SQLite file in the run directory)'}`);
      for (const option of q.options) lines.push(`      --queue-option ${option}`);
    }
  }
  return lines.join('\n');
}
