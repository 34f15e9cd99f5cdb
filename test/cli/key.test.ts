import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';

const VECTOR = [
  '--repo',
  'demo/payment-service',
  '--branch',
  'main',
  '--action',
  'generate-tests',
  '--payload',
  '{"ticket":"DEV-1024","paths":["src/billing.py"]}',
  '--workflow-version',
  '2026-08-25-v1',
];

describe('queue-drill key', () => {
  it('prints the hex key of the test vector and nothing else', async () => {
    const result = await execa(process.execPath, [CLI_PATH, 'key', ...VECTOR]);
    expect(result.stdout).toBe('245f159804469d525a65acef2d225664626a260192035c96602705a5e679237d');
    expect(result.stderr).toBe('');
  });

  it('exits 2 with a message on a payload that is not JSON', async () => {
    const args = [...VECTOR];
    args[args.indexOf('--payload') + 1] = '{"ticket":';
    const result = await execa(process.execPath, [CLI_PATH, 'key', ...args], { reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/queue-drill: .+/);
  });

  it('exits 2 when an option is missing', async () => {
    const result = await execa(process.execPath, [CLI_PATH, 'key', '--repo', 'x'], { reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/Missing required argument/);
  });
});
