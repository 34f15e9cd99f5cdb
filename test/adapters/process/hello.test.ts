import { describe, expect, it } from 'vitest';
import { parseHello, REQUIRED_OPS } from '../../../src/adapters/process/hello.js';
import { PROTOCOL_VERSION } from '../../../src/adapters/process/protocol.js';
import { EVIDENCE_KINDS } from '../../../src/kernel/vocabulary.js';

/** A hello as the protocol page shows it, with `capabilities` changed by `caps`. */
function hello(caps: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'q',
    version: '1',
    protocol: PROTOCOL_VERSION,
    capabilities: { evidence: Object.fromEntries(EVIDENCE_KINDS.map((k) => [k, true])), takeover: 'coordinator', clock: 'caller', ...caps },
    ops: [...REQUIRED_OPS],
  };
}

describe("a child's hello: fencing", () => {
  it('is claimed when the child says nothing of it, or says true', () => {
    expect(parseHello(hello({})).capabilities.fencing).toBe(true);
    expect(parseHello(hello({ fencing: true })).capabilities.fencing).toBe(true);
  });

  it("is the child's reason when it says why its writes are not fenced", () => {
    expect(parseHello(hello({ fencing: 'writes match by id' })).capabilities.fencing).toBe('writes match by id');
  });

  it.each([false, '', 1, {}])('is refused as %j, naming the field', (fencing) => {
    expect(() => parseHello(hello({ fencing }))).toThrow(/hello\.capabilities\.fencing must be true or a reason/);
  });
});

describe("a child's hello: renewals", () => {
  it("is the drill's own to give (its worker renews for the child and reports each lease end): a child that says nothing of it gives it", () => {
    const evidence = Object.fromEntries(EVIDENCE_KINDS.filter((k) => k !== 'renewals').map((k) => [k, true]));
    expect(parseHello(hello({ evidence })).capabilities.evidence.renewals).toBe(true);
    expect(parseHello(hello({ evidence: { ...evidence, renewals: 'not ours' } })).capabilities.evidence.renewals).toBe(true);
  });
});
