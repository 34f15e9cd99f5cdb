/** The effect log that goes with a store file unless one is named. */
export function effectLogFor(store: string): string {
  return `${store}.effects.jsonl`;
}
