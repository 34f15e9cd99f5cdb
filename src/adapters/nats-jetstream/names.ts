import { createHash } from 'node:crypto';

/*
 * The names one drill's queue lives under on the NATS server: a stream of its
 * own (JetStream names: letters, digits, `_` and `-`), the one subject it
 * captures, and the one durable pull consumer every worker shares.
 */

/** The durable pull consumer of a drill's stream: every worker pulls from it, as one work queue. */
export const CONSUMER_NAME = 'workers';

/** What a drill's stream name begins with (`queue-drill clean` and a person find them by it). */
export const STREAM_PREFIX = 'QD_';

/**
 * The stream of one drill: `QD_`, the run id made readable and a hash of the
 * whole id (two ids that read the same once cleaned still differ). Short:
 * JetStream keeps a stream's name in its store's directory names.
 */
export function streamNameFor(runId: string): string {
  const hash = createHash('sha256').update(runId).digest('hex').slice(0, 12);
  const readable = runId
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40);
  return `${STREAM_PREFIX}${readable === '' ? hash : `${readable}_${hash}`}`;
}

/** The subject a drill's stream captures: `qd.<the stream's own part>.jobs`. */
export function subjectFor(stream: string): string {
  const own = stream.startsWith(STREAM_PREFIX) ? stream.slice(STREAM_PREFIX.length) : stream;
  return `qd.${own}.jobs`;
}

/** The JetStream API subject a pull request for the next message goes to. */
export function pullSubjectFor(stream: string): string {
  return `$JS.API.CONSUMER.MSG.NEXT.${stream}.${CONSUMER_NAME}`;
}
