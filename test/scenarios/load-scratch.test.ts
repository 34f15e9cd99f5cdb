import { test } from 'vitest';
import { z } from 'zod';
import { parseDocument, LineCounter } from 'yaml';
import { ScenarioFileSchema } from '../../src/scenarios/schema.js';
const plan = { steps: [{ step_id: 'a', tool: 'write_file', has_side_effect: true, idempotent: true, reversible: false, retry_policy: 'auto', compensation: null, requires_approval: false }] };
const base = () => ({ version: 1, plans: { p: plan } as any, scenarios: [{ name: 's', description: 'd', jobs: [{ plan: 'p', expect: 'done' }], faults: [] as any[] }] as any[] });
test('x', () => {
  const cases: Record<string, any> = {};
  let f = base(); f.plans['Bad Name'] = plan; cases.reckey = f;
  f = base(); f.scenarios[0].lease_ms = 1.5; f.scenarios[0].poll_ms = 0; f.scenarios[0].jobs = []; cases.nums = f;
  f = base(); f.scenarios[0].faults = [{ at: 'after_claim', action: 'crsh' }]; f.scenarios.push({ ...f.scenarios[0], faults: [] }); cases.gate = f;
  f = base(); f.scenarios[0].faults = [{ action: 'crash' }]; cases.noat = f;
  f = base(); f.scenarios[0].faults = [{ at: 'after_claim', action: 'crash', where: {foo: 1} }]; cases.deepunk = f;
  for (const [k, v] of Object.entries(cases)) {
    const r = ScenarioFileSchema.safeParse(v, { reportInput: true });
    console.log(k, JSON.stringify(r.success ? 'OK' : r.error.issues.map(i => ({...i, input: i.code === 'custom' ? '...' : i.input})), null, 1));
  }
  for (const t of ['a: 1\na: 2\n', 'a: [1\n', 'a: !foo x\n', 'a: 1\n---\nb: 2\n', 'a:\n  b: 1\n   c: 2\n', 'x: *nope\n', '\t- a\n']) {
    const lc = new LineCounter();
    const d = parseDocument(t, { lineCounter: lc, prettyErrors: false });
    console.log(JSON.stringify(t), d.errors.map(e => [e.code, e.message, e.pos, lc.linePos(e.pos[0])]), d.warnings.map(e => [e.code, e.message, e.pos]));
  }
  console.log(JSON.stringify(z.toJSONSchema(ScenarioFileSchema, { io: 'input' }), null, 1).slice(0, 6000));
});
