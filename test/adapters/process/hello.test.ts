import { describe, expect, it } from 'vitest';
import { parseHello, REQUIRED_OPS, REQUIRED_OPS_2 } from '../../../src/adapters/process/hello.js';
import { EVIDENCE_KINDS } from '../../../src/kernel/vocabulary.js';

/** A hello as the protocol page shows it, with `capabilities` changed by `caps`. */
function hello(caps: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'q',
    version: '1',
    protocol: 1,
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

describe("a child's hello: protocol 2", () => {
  const two = (more: Record<string, unknown>) => ({ ...hello({}), protocol: 2, ops: [...REQUIRED_OPS, ...REQUIRED_OPS_2], ...more });

  it('says where its queue lives: a file by default, or a name on the servers it needs', () => {
    expect(parseHello(hello({}))).toMatchObject({ protocol: 1, locatorKind: 'file', needs: [] });
    expect(parseHello(two({}))).toMatchObject({ protocol: 2, locatorKind: 'file', needs: [] });
    expect(parseHello(two({ locator_kind: 'name', needs: ['redis_url', 'pg_url'] }))).toMatchObject({
      locatorKind: 'name',
      needs: ['redisUrl', 'pgUrl'],
    });
  });

  it('is refused when it lacks an op protocol 2 requires, or names a locator kind or a server the drill does not know', () => {
    expect(() => parseHello({ ...two({}), ops: [...REQUIRED_OPS, 'fit'] })).toThrow(
      /hello\.ops lacks teardown, which a protocol 2 child must answer/,
    );
    expect(() => parseHello(two({ locator_kind: 'schema' }))).toThrow(/hello\.locator_kind must be "file" or "name"/);
    expect(() => parseHello(two({ needs: ['mysql_url'] }))).toThrow(/hello\.needs must be a list of pg_url, redis_url/);
    expect(() => parseHello({ ...hello({}), protocol: 3 })).toThrow(/this drill speaks protocol 1 or 2/);
  });

  it("names the queue's own options a user may set, checked as a built-in adapter's are", () => {
    const options = {
      acks_late: { describe: 'acknowledge after the task', default: false, type: 'boolean' },
      visibility_timeout: { describe: 'seconds', default: 3600, type: 'number' },
      pool: { describe: 'the pool', default: 'solo', type: { one_of: ['solo', 'threads'] } },
    };
    expect(parseHello(two({ options })).options).toEqual({
      acks_late: { describe: 'acknowledge after the task', default: false, type: 'boolean' },
      visibility_timeout: { describe: 'seconds', default: 3600, type: 'number' },
      pool: { describe: 'the pool', default: 'solo', type: { oneOf: ['solo', 'threads'] } },
    });
    expect(parseHello(two({})).options).toEqual({});
    expect(parseHello({ ...hello({}), options }).options).toEqual({}); // protocol 1 has none
    expect(() => parseHello(two({ options: { x: { describe: 'x', default: 'no', type: 'boolean' } } }))).toThrow(
      /hello\.options\.x\.default "no" is not one of the values its type allows/,
    );
    expect(() => parseHello(two({ options: { x: { describe: 'x', default: 1, type: 'text' } } }))).toThrow(/hello\.options\.x\.type must be/);
    expect(() => parseHello(two({ options: { x: { default: 1, type: 'number' } } }))).toThrow(/hello\.options\.x\.describe must be text/);
  });
});
