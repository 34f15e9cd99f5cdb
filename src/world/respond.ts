import type { ServerResponse } from 'node:http';
import type { WorldError } from './errors.js';

/*
 * How the world answers: JSON with its length, and an error as
 * { error: { code, message, issues? } }. A response already sent, or one whose
 * socket is gone (a drop fault, a caller that hung up), is left alone rather
 * than throwing from a handler that has nobody left to tell.
 */

/** Answers `status` with `body` as JSON. */
export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

/** Answers a WorldError with its status, code, message and issues. */
export function sendError(res: ServerResponse, error: WorldError, headers: Record<string, string> = {}): void {
  const issues = error.issues.length > 0 ? { issues: error.issues } : {};
  send(res, error.status, { error: { code: error.code, message: error.message, ...issues } }, headers);
}
