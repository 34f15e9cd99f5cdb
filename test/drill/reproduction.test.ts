import { describe, expect, it } from 'vitest';
import { brokenInvariants, withReproduction } from '../../src/drill/reproduction.js';
import { describeReproduction } from '../../src/report/reproduction-line.js';
import { checkReport } from '../../src/report/schema.js';
import { drillReport } from '../report/fixture.js';

// The fixture's scenarios: passing, failing (two invariants broken), vacuous, harness error.
const [passing, failing, vacuous] = drillReport().scenarios;

describe('a failing run and its replay', () => {
  it('names the broken invariants on the replay command of a scenario that failed on them, and only there', () => {
    const broken = brokenInvariants(failing!);
    expect(broken.length).toBeGreaterThan(0);
    expect(withReproduction(failing!).replay).toBe(`${failing!.replay} --expect-broken ${broken.join(',')}`);
    expect(withReproduction(passing!).replay).toBe(passing!.replay);
    expect(withReproduction(vacuous!).replay).toBe(vacuous!.replay);
  });

  it('says a replay reproduced when it broke exactly the same invariants, in any order', () => {
    const broken = brokenInvariants(failing!);
    const replayed = withReproduction(failing!, [...broken].reverse());
    expect(replayed.reproduction).toEqual({ expected: [...broken].reverse(), broken, reproduced: true });
    expect(describeReproduction(replayed.reproduction!)).toBe(`reproduced: the same invariants broke (${broken.join(', ')})`);
  });

  it('says it did not when it broke fewer, more or other invariants, or nothing', () => {
    const broken = brokenInvariants(failing!);
    expect(withReproduction(failing!, broken.slice(1)).reproduction!.reproduced).toBe(false);
    expect(withReproduction(failing!, [...broken, 'secrets-redacted']).reproduction!.reproduced).toBe(false);
    const none = withReproduction(passing!, broken).reproduction!;
    expect(none).toEqual({ expected: broken, broken: [], reproduced: false });
    expect(describeReproduction(none)).toBe(`NOT reproduced: the run replayed broke ${broken.join(', ')}; this one broke nothing`);
  });

  it('keeps the report valid', () => {
    const report = drillReport();
    report.scenarios = report.scenarios.map((s) => withReproduction(s, ['no-lost-job']));
    expect(checkReport(report).ok).toBe(true);
  });
});
