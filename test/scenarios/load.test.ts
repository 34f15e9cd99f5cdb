import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FAULT_ACTION_NAMES } from '../../src/faults/actions/index.js';
import { formatIssues, loadScenarioFile, parseScenarioText, ScenarioFileError } from '../../src/scenarios/load.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'scenarios');

/** The error a call throws, for assertions on its fields. */
function thrown(fn: () => unknown): ScenarioFileError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ScenarioFileError) return error;
    throw error;
  }
  throw new Error('expected a ScenarioFileError, but nothing was thrown');
}

describe('loadScenarioFile', () => {
  test('a file using every part of the format loads, with defaults filled in', () => {
    const file = loadScenarioFile(join(FIXTURES, 'valid.yaml'));
    expect(file.version).toBe(1);
    expect(file.defaults).toMatchObject({ lease_ms: 300, restart: false });
    expect(Object.keys(file.plans)).toEqual(['branch-and-charge']);
    expect(file.scenarios.map((s) => s.name)).toEqual(['worker-killed-after-claim', 'network-faults']);
    const [killed, network] = file.scenarios;
    expect(killed!.invariants).toBe('all');
    expect(killed!.faults).toHaveLength(3);
    expect(network!.workers).toEqual([
      { id: 'w1', clock_skew_ms: 0 },
      { id: 'w2', clock_skew_ms: -250 },
    ]);
    expect(network!.jobs[0]!.count).toBe(1);
    expect(network!.invariants).toEqual(['no-lost-job', 'no-duplicate-effect', 'single-holder']);
  });

  test('a file whose first line points an editor at the JSON Schema loads', () => {
    const file = loadScenarioFile(join(FIXTURES, 'with-schema-comment.yaml'));
    expect(file.scenarios[0]!.name).toBe('smallest');
  });

  const dir = mkdtempSync(join(tmpdir(), 'qd-load-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a missing file is a ScenarioFileError that says where it looked', () => {
    const path = join(dir, 'nope.yaml');
    const error = thrown(() => loadScenarioFile(path));
    expect(error.code).toBe('QD_BAD_SCENARIOS');
    expect(error.issues).toEqual([{ path: '', line: null, column: null, message: `no such file (looked for ${path})` }]);
    expect(error.message).toBe(`${path}: no such file (looked for ${path})`);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  test('a directory is refused as such', () => {
    const error = thrown(() => loadScenarioFile(dir));
    expect(error.issues[0]!.message).toBe('is a directory, not a scenarios file');
  });

  test('an empty file is refused, saying what a file holds', () => {
    for (const text of ['', '\n  \n', '\uFEFF']) {
      const error = thrown(() => parseScenarioText(text, 'scenarios.yaml'));
      expect(error.issues).toEqual([
        {
          path: '',
          line: null,
          column: null,
          message: 'is empty: a scenarios file holds `version: 1` and a list of `scenarios:` (see scenarios.schema.json)',
        },
      ]);
    }
  });

  test('a file of comments only is refused: it is not a mapping', () => {
    const error = thrown(() => parseScenarioText('# nothing here\n', 'scenarios.yaml'));
    expect(error.issues).toEqual([{ path: '', line: null, column: null, message: 'expected a mapping, got an empty value (null)' }]);
  });
});

describe('the error message', () => {
  // Built so the bad action sits on line 14, column 9, in the third scenario, as in the format's example.
  const text = [
    'version: 1', // 1
    'plans:', // 2
    '  p: { steps: [{ step_id: s, tool: write_file, has_side_effect: true, idempotent: true, reversible: false, retry_policy: auto, compensation: null, requires_approval: false }] }', // 3
    'scenarios:', // 4
    '  - name: a', // 5
    '    description: d', // 6
    '    jobs: [{ plan: p, expect: done }]', // 7
    '  - name: b', // 8
    '    description: d', // 9
    '    jobs: [{ plan: p, expect: done }]', // 10
    '  - name: c', // 11
    '    description: d', // 12
    '    faults:', // 13
    '      - action: crsh', // 14
    '        at: after_claim', // 15
    '    jobs: [{ plan: p, expect: done }]', // 16
    '    lease_ms: fast', // 17
  ].join('\n');

  test('is one line per problem, source:line:column path: what is wrong and what is allowed', () => {
    const error = thrown(() => parseScenarioText(text, 'scenarios.yaml'));
    expect(error.message).toBe(
      [
        '2 problems in scenarios.yaml:',
        `scenarios.yaml:14:9 scenarios[2].faults[0].action: invalid value "crsh"; allowed: ${FAULT_ACTION_NAMES.join(', ')}`,
        'scenarios.yaml:17:5 scenarios[2].lease_ms: expected an integer, got the string "fast"',
      ].join('\n'),
    );
  });

  test('formatIssues is the same view, for callers that gather issues themselves', () => {
    const error = thrown(() => parseScenarioText(text, 'drills/x.yaml'));
    expect(formatIssues('drills/x.yaml', error.issues).split('\n')[0]).toBe(
      `drills/x.yaml:14:9 scenarios[2].faults[0].action: invalid value "crsh"; allowed: ${FAULT_ACTION_NAMES.join(', ')}`,
    );
    expect(formatIssues('f.yaml', [{ path: '', line: null, column: null, message: 'no such file' }])).toBe('f.yaml: no such file');
  });
});
