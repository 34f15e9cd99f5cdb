import type { DrillDemands, DrillFit } from '../../port/adapter.js';
import { shownCommand } from './command-line.js';
import { type ChildHello, offers } from './hello.js';

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
      protocol: 1,
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
