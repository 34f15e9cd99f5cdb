import { writeFileSync } from 'node:fs';
import { redact, secretsInPayload } from './redact.js';
import { writeAtomically } from './write-atomically.js';

/*
 * The jobs file of a drill (jobs.json in its run directory) is what its
 * producers enqueue, so while they run it holds the jobs as the scenario gives
 * them: a declared `secret:`, a password in a step's args. The run directory is
 * kept as a CI artefact afterwards, so once the drill's processes are stopped
 * the file keeps the same jobs with every such value redacted: what was
 * enqueued, readable, and nothing a person must not see.
 */

/** One job as the producers read it (src/port/enqueue-plans.ts): its key, its plan (already validated by the drill), its budget. */
export interface JobsFileEntry {
  key: string;
  plan: unknown;
  maxAttempts: number;
}

/** The jobs as the file holds them (and the harness's own producer takes them): nothing but what a producer enqueues. */
export function jobsFileEntries(jobs: readonly JobsFileEntry[]): JobsFileEntry[] {
  return jobs.map(({ key, plan, maxAttempts }) => ({ key, plan, maxAttempts }));
}

/**
 * Writes the jobs for the producers, and gives back `closeWorld` followed by
 * the file's redaction: the world is closed after every process of the drill is
 * stopped (and again, harmlessly, when the drill is torn down), so no producer,
 * not even one that enqueues again late, reads the redacted file.
 */
export function writeJobsFile(
  file: string,
  jobs: readonly JobsFileEntry[],
  declaredSecrets: readonly string[],
  closeWorld: () => Promise<void>,
): () => Promise<void> {
  const entries = jobsFileEntries(jobs);
  const text = JSON.stringify(entries);
  writeFileSync(file, text);
  const secrets = [...declaredSecrets, ...entries.flatMap((job) => secretsInPayload(job.plan))];
  return async () => {
    await closeWorld();
    writeAtomically(file, redact(text, secrets));
  };
}
