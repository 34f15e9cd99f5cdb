import { describe, expect, it } from 'vitest';
import { CATALOGUE, isToolName, TOOL_NAMES, type ToolMetadata, toolMetadata } from '../../src/world/catalogue.js';

type Expected = Omit<ToolMetadata, 'name' | 'args' | 'refPrefix' | 'compensationOf'>;

// The transaction sketch's TOOLS and POLICIES, and the brief's additions (compensations, lookup).
const EXPECTED: Record<string, Expected> = {
  read_file: {
    hasSideEffect: false,
    idempotent: true,
    reversible: true,
    riskLevel: 'low',
    compensationTool: null,
    rollbackType: 'none',
    requiresHumanReview: false,
    lookup: false,
  },
  write_file: {
    hasSideEffect: true,
    idempotent: true,
    reversible: true,
    riskLevel: 'medium',
    compensationTool: 'restore_file_version',
    rollbackType: 'exact',
    requiresHumanReview: false,
    lookup: true,
  },
  create_branch: {
    hasSideEffect: true,
    idempotent: true,
    reversible: true,
    riskLevel: 'low',
    compensationTool: 'delete_branch',
    rollbackType: 'exact',
    requiresHumanReview: false,
    lookup: true,
  },
  charge_customer: {
    hasSideEffect: true,
    idempotent: false,
    reversible: false,
    riskLevel: 'critical',
    compensationTool: null,
    rollbackType: 'not_reversible',
    requiresHumanReview: true,
    lookup: true,
  },
  send_email: {
    hasSideEffect: true,
    idempotent: false,
    reversible: false,
    riskLevel: 'high',
    compensationTool: null,
    rollbackType: 'not_reversible',
    requiresHumanReview: true,
    lookup: false,
  },
  publish_article: {
    hasSideEffect: true,
    idempotent: false,
    reversible: true,
    riskLevel: 'high',
    compensationTool: 'unpublish_article',
    rollbackType: 'business_compensation',
    requiresHumanReview: true,
    lookup: true,
  },
};

describe('the tool catalogue', () => {
  it.each(Object.entries(EXPECTED))("%s carries the transaction sketch's metadata", (name, expected) => {
    expect(toolMetadata(name)).toMatchObject({ name, ...expected });
  });

  it('every compensation tool exists, is keyed-idempotent, has a side effect, names what it undoes, and takes {compensates}', () => {
    const compensators = TOOL_NAMES.filter((name) => CATALOGUE[name].compensationTool !== null);
    expect(compensators.sort()).toEqual(['create_branch', 'publish_article', 'write_file']);
    for (const name of compensators) {
      const undo = CATALOGUE[CATALOGUE[name].compensationTool!];
      expect(undo.compensationOf, name).toBe(name);
      expect(undo.idempotent, undo.name).toBe(true);
      expect(undo.hasSideEffect, undo.name).toBe(true);
      expect(undo.args.safeParse({ compensates: 'job:1' }).success).toBe(true);
      expect(undo.args.safeParse({}).success).toBe(false);
    }
    // And nothing claims to undo a tool that does not name it as its compensation.
    for (const name of TOOL_NAMES) {
      const of = CATALOGUE[name].compensationOf;
      if (of !== null) expect(CATALOGUE[of].compensationTool).toBe(name);
    }
  });

  it('a tool with a compensation tool is reversible; one without side effect needs no lookup', () => {
    for (const name of TOOL_NAMES) {
      const tool = CATALOGUE[name];
      if (tool.compensationTool) expect(tool.reversible, name).toBe(true);
      if (!tool.hasSideEffect) expect(tool.lookup, name).toBe(false);
    }
  });

  it('external reference prefixes are distinct, so a reference names its tool', () => {
    const prefixes = TOOL_NAMES.map((name) => CATALOGUE[name].refPrefix);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    expect(CATALOGUE.charge_customer.refPrefix).toBe('ch_');
  });

  it('validates each tool’s arguments, allowing extra fields', () => {
    expect(CATALOGUE.write_file.args.safeParse({ path: 'a.txt', content: '' }).success).toBe(true);
    expect(CATALOGUE.write_file.args.safeParse({ path: 'a.txt' }).success).toBe(false);
    expect(CATALOGUE.charge_customer.args.safeParse({ customer: 'c_1024', amount: 199, note: 'x' }).success).toBe(true);
    expect(CATALOGUE.charge_customer.args.safeParse({ customer: 'c_1024', amount: -1 }).success).toBe(false);
    expect(CATALOGUE.send_email.args.safeParse({ to: '', subject: 's' }).success).toBe(false);
  });

  it('knows exactly its tools', () => {
    expect(isToolName('charge_customer')).toBe(true);
    expect(isToolName('drop_database')).toBe(false);
    expect(toolMetadata('toString')).toBeUndefined();
    expect(TOOL_NAMES.every((name) => CATALOGUE[name].name === name)).toBe(true);
  });
});
