import { Logger, type LogLevel } from 'graphile-worker';

/**
 * graphile-worker's own log lines, without their meta: its failure line
 * carries the whole job (payload and all), and a payload may hold a secret.
 * The message alone names the job by id and quotes the error, which the drill
 * has redacted before it threw it.
 */
export function graphileLogger(write: (level: LogLevel, message: string) => void): Logger {
  return new Logger(() => (level, message) => write(level, message));
}

/** For migrations and utilities: nothing of graphile's own logging reaches the drill's output. */
export const silentLogger: Logger = graphileLogger(() => {});
