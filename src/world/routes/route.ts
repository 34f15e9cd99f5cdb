import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../kernel/clock.js';
import type { DelayedAnswers } from '../delayed-answers.js';
import type { FaultTable } from '../faults.js';
import type { WorldLedger } from '../ledger.js';
import type { CallLogEntry } from '../received-call.js';

/*
 * The shape every route handler has, so the server can dispatch to a table of
 * them without knowing what any one does, and a handler can be tested through
 * the real server without knowing how the others work.
 */

/** What every route of one world shares: its ledger, its faults, its clock, its held answers, and where calls are reported. */
export interface WorldContext {
  ledger: WorldLedger;
  clock: Clock;
  faults: FaultTable;
  delayed: DelayedAnswers;
  onCall?: ((entry: CallLogEntry) => void) | undefined;
}

/** One request as a handler sees it. */
export interface RouteRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** The body, read once and size-limited by the server; rejects with WORLD_BODY_TOO_LARGE (413). */
  body(): Promise<string>;
}

/** Answers one method on one path; a thrown error is answered by the server with its code and status. */
export type RouteHandler = (request: RouteRequest, world: WorldContext) => void | Promise<void>;

/** The handlers of one path, by HTTP method; their order is the order of the 405's `allow` header. */
export type Route = Partial<Record<string, RouteHandler>>;
