import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAULT_DOCS_FILE, renderFaultDocs } from '../../src/cli/fault-docs.js';
import { POINT_FAULT_ACTIONS } from '../../src/faults/actions/index.js';
import { WORLD_FAULT_ACTIONS } from '../../src/world/fault-actions/index.js';

describe('docs/faults.md', () => {
  it('is the page generated from the registries of fault actions (regenerate: npm run build && node dist/cli/main.js docs --write)', () => {
    expect(readFileSync(FAULT_DOCS_FILE, 'utf8')).toBe(renderFaultDocs());
  });

  it('names every action of both registries, with each field', () => {
    const page = renderFaultDocs();
    expect([POINT_FAULT_ACTIONS.length, WORLD_FAULT_ACTIONS.length], 'both registries have actions to name').not.toContain(0);
    for (const action of [...POINT_FAULT_ACTIONS, ...WORLD_FAULT_ACTIONS]) {
      expect(page).toContain(`- \`${action.name}\`: ${action.summary}.`);
      for (const field of Object.keys(action.fields)) expect(page).toContain(`\`${field}\``);
    }
  });
});
