import { test } from 'vitest';
import { ScenarioFileSchema } from '../../src/scenarios/schema.js';
const plan = { steps: [{ step_id: 'a', tool: 'write_file', has_side_effect: true, idempotent: true, reversible: false, retry_policy: 'auto', compensation: null, requires_approval: false }] };
const base = () => ({ version: 1, plans: { p: plan }, scenarios: [{ name: 's', description: 'd', jobs: [{ plan: 'p', expect: 'done' }], faults: [] as any[] }] });
test('x', () => {
  const cases: Record<string, any> = {};
  let f = base(); f.scenarios[0]!.faults = [{ at: 'after_claim', action: 'crsh' }]; cases.enum = f;
  f = base(); f.scenarios[0]!.faults = [{ at: 'after_claim', action: 'crash', bogus: 1 }]; cases.unkFault = f;
  f = base(); f.scenarios[0]!.faults = [{ world: { step: 'a' }, action: 'fail', status: 500 }]; cases.status = f;
  f = base(); (f as any).version = 2; (f.scenarios[0] as any).foo = 1; (f.scenarios[0] as any).workers = 'x'; (f.scenarios[0] as any).invariants = ['nope']; cases.multi = f;
  f = base(); (f.scenarios[0]!.jobs[0] as any).plan = 'q'; f.scenarios.push({ ...f.scenarios[0]! }); cases.custom = f;
  f = base(); (f.scenarios[0]!.jobs[0] as any).expect = 'dne'; cases.expect = f;
  f = base(); (f.scenarios[0]!.jobs[0] as any).expect = {status:'done', x: 1}; cases.expect2 = f;
  f = base(); (f.scenarios[0]!.jobs[0] as any).plan = {steps: [{...plan.steps[0], zz: 1, retry_policy: 'no'}]}; cases.inlineplan = f;
  f = base(); (f.scenarios[0] as any).restart = {after_ms: 1}; cases.restart = f;
  f = base(); delete (f.scenarios[0] as any).description; cases.missing = f;
  f = base(); f.scenarios[0]!.faults = [{ at: 'after_claim', action: 'pause' }, {world: {}, action: 'drop'}]; cases.faultms = f;
  for (const [k, v] of Object.entries(cases)) {
    const r = ScenarioFileSchema.safeParse(v, { reportInput: true, error: (iss: any) => { if (iss.code === 'unrecognized_keys') console.log('MAP', iss.inst?._zod.def.shape && Object.keys(iss.inst._zod.def.shape)); return undefined; } });
    console.log(k, JSON.stringify(r.success ? 'OK' : r.error.issues, null, 1));
  }
});
