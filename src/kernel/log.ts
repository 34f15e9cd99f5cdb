import { redact } from './redact.js';

/** One structured log line: machine-parseable, and redacted before it is written. */
export type LogLine = { event: string } & Record<string, unknown>;

/** Writes JSON lines to a stream, each stamped with time and source, never with a secret. */
export function jsonLogger(source: string, now: () => string, write: (line: string) => void = (l) => process.stdout.write(l)) {
  return (line: LogLine, knownSecrets: readonly string[] = []): void => {
    write(`${redact(JSON.stringify({ at: now(), source, ...line }), knownSecrets)}\n`);
  };
}
