import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { tempRunDir } from '../helpers/run-dir.js';

/*
 * run --shard and merge refuse what cannot make a share or a merge, before
 * anything runs or is written, with exit 2 and a line saying why. (Merging
 * real shards of the shipped drill: test/selftest/shard-merge.test.ts; every
 * kind of mismatch between shards: test/report/merge-shards.test.ts.)
 */

const SMALL = 'test/fixtures/scenarios/drill-small.yaml';
const temp = tempRunDir('shard-cli');
afterAll(() => temp.remove());

const cli = (...args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false, env: { CI: 'true' } });

describe('run --shard and merge, refused', () => {
  it.each([
    ['0/3', /--shard 0\/3: expected i\/n with 1 <= i <= n, e\.g\. 2\/3/],
    ['4/3', /--shard 4\/3: expected i\/n/],
    ['two', /--shard two: expected i\/n/],
    // crash-after-claim alone is one scenario run: a second share would run nothing.
    ['2/2', /--shard 2\/2: the drill has 1 scenario run\(s\), so at most 1 shards/],
  ])('run --shard %s', async (shard, message) => {
    const out = join(temp.dir, `bad-${shard.replace('/', '-')}`);
    const result = await cli('run', SMALL, '--only', 'crash-after-claim', '--shard', shard, '--out', out);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  it('run --shard with --baseline: the baseline belongs to merge, which compares the whole drill', async () => {
    const result = await cli('run', SMALL, '--shard', '1/2', '--baseline', 'drill-runs', '--out', join(temp.dir, 'baseline'));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--baseline with --shard: give the baseline to merge instead (queue-drill merge DIR... --baseline drill-runs)');
  });

  it('merge of nothing, or of a directory with no report', async () => {
    const none = await cli('merge', '--out', join(temp.dir, 'merged'));
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/merge needs each shard.s run directory \(or report.json\): queue-drill merge DIR\.\.\./);
    const empty = await cli('merge', temp.dir, '--out', join(temp.dir, 'merged'));
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain(`${join(temp.dir, 'report.json')}: cannot read the report`);
    expect(existsSync(join(temp.dir, 'merged'))).toBe(false);
  });
});
