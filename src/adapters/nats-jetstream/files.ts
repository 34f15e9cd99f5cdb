import type { JetStreamManager } from '@nats-io/jetstream';

/*
 * Where a drill's record and saga file are (beside its run): in the drill's
 * processes' environment (Provisioned.env), and in the stream's description,
 * for a process told only the locator (an observer after the run).
 */

/** The environment variable naming the drill's record of its jobs. */
export const RECORD_FILE_ENV = 'QD_NATS_RECORD_FILE';
/** The environment variable naming the drill's saga file. */
export const SAGA_FILE_ENV = 'QD_NATS_SAGA_FILE';

/** The files of one drill. */
export interface DrillFiles {
  record: string;
  saga: string;
}

const MARK = 'queue-drill files: ';

/** The stream's description, naming its files. */
export function describeFiles(runId: string, files: DrillFiles): string {
  return `queue-drill run ${runId}; ${MARK}${JSON.stringify(files)}`;
}

function filesInDescription(description: string | undefined): DrillFiles | null {
  const at = description?.indexOf(MARK) ?? -1;
  if (description === undefined || at < 0) return null;
  try {
    const files = JSON.parse(description.slice(at + MARK.length)) as Partial<DrillFiles>;
    return typeof files.record === 'string' && typeof files.saga === 'string' ? { record: files.record, saga: files.saga } : null;
  } catch {
    return null;
  }
}

/** The drill's files: from the environment, else from the stream's description; throws naming what is missing. */
export async function drillFiles(env: NodeJS.ProcessEnv, jsm: JetStreamManager, stream: string): Promise<DrillFiles> {
  const record = env[RECORD_FILE_ENV];
  const saga = env[SAGA_FILE_ENV];
  if (record && saga) return { record, saga };
  const described = filesInDescription((await jsm.streams.info(stream)).config.description);
  if (!described) throw new Error(`no record file for JetStream stream ${stream}: provision sets ${RECORD_FILE_ENV} and ${SAGA_FILE_ENV}`);
  return described;
}
