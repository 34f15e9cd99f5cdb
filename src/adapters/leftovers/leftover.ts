import type { OwnerMark } from './owner-mark.js';

/** Something a drill makes on a server, found by queue-drill's naming: whose it is is for its mark to say. */
export interface Leftover {
  kind: 'schema' | 'database' | 'key prefix';
  name: string;
  /** Its server, password hidden. */
  server: string;
  /** Its owner mark, or null when it has none (or one that is not queue-drill's). */
  mark: OwnerMark | null;
  /** Whether its lease is live by the server's clock; null when there is none to read. */
  leaseLive: boolean | null;
  /** How big it is, for a person (a prefix's keys), where that is cheap to say. */
  size?: string;
  /** Removes it and everything in it; nothing left to remove is fine. */
  remove(): Promise<void>;
}
