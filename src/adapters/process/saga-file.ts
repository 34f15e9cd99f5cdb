/** Where the saga's checkpoints of a `process:` queue live: a file beside the queue's own, in the run directory. */
export function sagaFileFor(locator: string): string {
  return `${locator}.saga.db`;
}
