import type { DrillDemands, DrillFit } from '../../port/adapter.js';
import { shownCommand } from './command-line.js';
import { type ChildHello, offers } from './hello.js';
import { count, MalformedMessageError, record, text } from './protocol.js';

/**
 * Whether a child can run a drill, from what its hello said: the lease it can
 * keep, the attempt budget, the parts of the contract the drill will use (a
 * person's approval needs `requeue_from_review`; a coordinator that takes
 * leases back needs the takeover ops), and the tools its jobs may call. The
 * plan itself is run by the drill's handler, so a child that states no tool
 * list runs every plan. Not fitting is "not judged" with the reason, never a
 * failure.
 */
export function fitChild(hello: ChildHello, command: string, demands: DrillDemands): DrillFit {
  const who = `${hello.name} ${hello.version}`;
  const maxAttempts = Math.max(0, ...demands.maxAttempts);
  if (demands.leaseMs < hello.limits.minLeaseMs)
    return { ok: false, reason: `${who} keeps leases of ${hello.limits.minLeaseMs} ms or more; the drill asks for ${demands.leaseMs} ms` };
  if (maxAttempts > hello.limits.maxAttempts)
    return { ok: false, reason: `${who} allows at most ${hello.limits.maxAttempts} attempts a job; the drill asks for ${maxAttempts}` };
  if (demands.approval && !offers(hello, 'human'))
    return { ok: false, reason: `${who} does not answer requeue_from_review: a person cannot send a job back from review` };
  if (demands.coordinator && hello.capabilities.takeover === 'coordinator' && !offers(hello, 'takeover'))
    return { ok: false, reason: `${who} leaves takeover to the coordinator but does not answer its ops (expired_leases, release_expired, …)` };
  const tools = hello.limits.tools;
  const unknown = tools === undefined ? [] : demands.tools.filter((tool) => !tools.includes(tool));
  if (unknown.length > 0) return { ok: false, reason: `${who} cannot run a plan that calls ${unknown.join(', ')} (its tools: ${tools!.join(', ')})` };
  return {
    ok: true,
    mapping: {
      command: shownCommand(command),
      child: who,
      protocol: hello.protocol,
      lease_ms: demands.leaseMs,
      skew_margin_ms: demands.skewMarginMs,
      poll_ms: demands.pollMs,
      retry_base_ms: demands.retryDelay.baseMs,
      retry_cap_ms: demands.retryDelay.capMs,
      retry_jitter_ms: demands.retryDelay.jitterMs,
      renewal: 'heartbeat requests from the drill worker, at half the lease left (at most every lease/3)',
      saga_store: hello.capabilities.sagaStore,
      clock: hello.capabilities.clock,
    },
  };
}

/** The drill's demands as a protocol 2 child reads them in `fit`: snake_case, the port's words. */
export function demandsOnTheWire(demands: DrillDemands): Record<string, unknown> {
  return {
    lease_ms: demands.leaseMs,
    skew_margin_ms: demands.skewMarginMs,
    poll_ms: demands.pollMs,
    call_timeout_ms: demands.callTimeoutMs ?? 0,
    max_attempts: demands.maxAttempts,
    retry_delay: { base_ms: demands.retryDelay.baseMs, cap_ms: demands.retryDelay.capMs, jitter_ms: demands.retryDelay.jitterMs },
    coordinator: demands.coordinator,
    approval: demands.approval,
    tools: demands.tools,
    points: demands.points,
    holder_dies: demands.holderDies,
    queue_options: demands.queueOptions,
    timeout_ms: demands.timeoutMs,
  };
}

/**
 * A protocol 2 child's answer to `fit`, checked: `{ok: true, mapping}` (its
 * own options as it set them from the demands: text, numbers or booleans), or
 * `{ok: false, reason}` (with `unsupported: true` when it lacks a feature the
 * drill needs). Throws MalformedMessageError naming the field that is wrong.
 */
export function parseFitAnswer(body: Record<string, unknown>): DrillFit {
  if (body.ok === false) {
    const reason = text(body, 'reason', 'the answer to fit');
    return body.unsupported === true ? { ok: false, reason, unsupported: true } : { ok: false, reason };
  }
  if (body.ok !== true) throw new MalformedMessageError(`fit.ok must be true or false, got ${JSON.stringify(body.ok)}`);
  const mapping = record(body.mapping ?? {}, 'fit.mapping');
  const atLeast = body.at_least === undefined ? undefined : parseAtLeast(record(body.at_least, 'fit.at_least'));
  for (const [key, value] of Object.entries(mapping))
    if (!['string', 'number', 'boolean'].includes(typeof value))
      throw new MalformedMessageError(`fit.mapping.${key} must be text, a number or a boolean, got ${JSON.stringify(value)}`);
  const fit: DrillFit = { ok: true, mapping: mapping as Record<string, string | number | boolean> };
  return atLeast === undefined ? fit : { ...fit, atLeast };
}

/** `at_least`: the watchdog and deadline the queue's own recovery needs (its own schedule), and why. */
function parseAtLeast(given: Record<string, unknown>): { noProgressMs?: number; timeoutMs?: number; why: string } {
  const why = text(given, 'why', 'fit.at_least');
  const noProgress = given.no_progress_ms === undefined ? {} : { noProgressMs: count(given, 'no_progress_ms', 'fit.at_least') };
  const timeout = given.timeout_ms === undefined ? {} : { timeoutMs: count(given, 'timeout_ms', 'fit.at_least') };
  return { ...noProgress, ...timeout, why };
}
