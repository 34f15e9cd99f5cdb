import * as z from 'zod';
import { utc } from '../../kernel/clock.js';
import { badRequest, issuesOf } from '../errors.js';
import { DELIVERY_EVENTS } from '../ledger/deliveries-table.js';
import { send } from '../respond.js';
import type { Route, RouteRequest, WorldContext } from './route.js';

/*
 * POST /delivery: a holder tells the world where its delivery of a job
 * stands (began, writing, wrote), so the world can order the queue's writes
 * against its calls and against other holders' deliveries (ledger/
 * deliveries-table.ts). Names and numbers only: nothing of a payload.
 */

/** A settlement's write, or the queue loop's own (`expired`: it failed a job whose handler outlived its lease). */
const WRITE_KINDS = ['done', 'retry', 'review', 'compensate', 'expired'] as const;

const DeliveryBodySchema = z.strictObject({
  job: z.union([z.string().min(1).max(512), z.int()]).transform(String),
  worker: z.string().min(1).max(200),
  attempt: z.int().min(0),
  epoch: z.int().min(0),
  event: z.enum(DELIVERY_EVENTS),
  write: z.enum(WRITE_KINDS).optional(),
  applied: z.boolean().optional(),
});

/** POST /delivery: records the report and answers its place in the world's order. */
export async function handleDelivery(request: RouteRequest, { ledger, clock }: WorldContext): Promise<void> {
  let body: unknown;
  try {
    body = JSON.parse(await request.body());
  } catch {
    throw badRequest('WORLD_BAD_JSON', 'delivery report', [{ path: '', message: 'the body is not JSON' }]);
  }
  const parsed = DeliveryBodySchema.safeParse(body);
  if (!parsed.success) throw badRequest('WORLD_BAD_REQUEST', 'delivery report', issuesOf(parsed.error.issues));
  send(request.res, 200, { seq: ledger.recordDelivery(parsed.data, utc(clock.now())) });
}

/** The /delivery path. */
export const DELIVERY_ROUTE: Route = { POST: handleDelivery };
