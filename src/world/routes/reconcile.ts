import { type ToolName, toolMetadata } from '../catalogue.js';
import { badRequest } from '../errors.js';
import { reconcile } from '../reconcile.js';
import { send } from '../respond.js';
import type { Route, RouteRequest, WorldContext } from './route.js';

/*
 * GET /reconcile?tool=&key=[&fence=&job=]: after an unknown outcome, did the
 * call under this key happen? With a fence, asking also fences off every
 * older holder (in a fenced world), so a "not executed" answer cannot be
 * overtaken by a stale worker's late call; a plain world only answers.
 */

/** The validated query: every problem named at once, so one look fixes it. */
function parseQuery(url: URL): { tool: ToolName; key: string; fence: number | null; job: string | null } {
  const tool = url.searchParams.get('tool');
  const key = url.searchParams.get('key');
  const issues = [...(tool ? [] : [{ path: 'tool', message: 'required' }]), ...(key ? [] : [{ path: 'key', message: 'required' }])];
  if (issues.length > 0) throw badRequest('WORLD_BAD_REQUEST', 'reconcile query', issues);
  const meta = toolMetadata(tool as string);
  if (!meta) throw badRequest('WORLD_UNKNOWN_TOOL', 'reconcile query', [{ path: 'tool', message: `unknown tool ${JSON.stringify(tool)}` }]);
  const fenceText = url.searchParams.get('fence');
  const fence = fenceText === null ? null : Number(fenceText);
  if (fence !== null && (!Number.isInteger(fence) || fence < 0))
    throw badRequest('WORLD_BAD_REQUEST', 'reconcile query', [{ path: 'fence', message: 'a whole number' }]);
  return { tool: meta.name, key: key as string, fence, job: url.searchParams.get('job') };
}

/** GET /reconcile: what the world can say about a tool's call under a key. */
export function handleReconcile({ res, url }: RouteRequest, { ledger }: WorldContext): void {
  const { tool, key, fence, job } = parseQuery(url);
  // With a fence, the answer holds from here on for every older holder: the floors are raised first.
  send(
    res,
    200,
    ledger.transaction(() => {
      if (fence !== null && ledger.fences) ledger.admitFence(key, fence, job);
      return reconcile(ledger, tool, key);
    }),
  );
}

/** The /reconcile path. */
export const RECONCILE_ROUTE: Route = { GET: handleReconcile };
