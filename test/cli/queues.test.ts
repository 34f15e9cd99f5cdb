import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { QueueListing } from '../../src/cli/queue-list.js';
import { CLI_PATH } from '../../src/harness/cli-path.js';
import { toolVersion } from '../../src/kernel/version.js';
import { QUEUE_IMPLS } from '../../src/queues/registry.js';

/*
 * `queue-drill queues`: what --queue accepts, from the registry, for a person
 * (by kind, each with what it is, needs and is versioned as) and as JSON; and
 * every --queue help says to look there.
 */

const cli = (args: string[]) => execa(process.execPath, [CLI_PATH, ...args], { reject: false });

describe('queue-drill queues', () => {
  it('--json lists every implementation the registry has, what it is, what it needs and its version, and the process form', async () => {
    const result = await cli(['queues', '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const listings = JSON.parse(result.stdout) as QueueListing[];
    expect(listings.map((q) => q.name)).toEqual([...QUEUE_IMPLS.map((q) => q.name), 'process:CMD ARGS']);
    const by = (name: string) => listings.find((q) => q.name === name)!;
    expect(by('reference')).toMatchObject({
      kind: 'reference',
      aliases: ['sqlite'],
      needs: [],
      version: expect.stringMatching(/^queue-drill .* \(SQLite\)$/),
    });
    expect(by('postgres')).toMatchObject({ kind: 'reference', needs: [expect.stringMatching(/^PostgreSQL \(--pg-url, else QD_PG_URL/)] });
    expect(by('bullmq')).toMatchObject({ kind: 'observed', needs: [expect.stringMatching(/^Redis/)], version: expect.stringMatching(/^bullmq \d/) });
    for (const impl of QUEUE_IMPLS.filter((q) => q.soundness === 'broken')) {
      expect(by(impl.name), impl.name).toMatchObject({ kind: 'broken', description: impl.description, breaks: [...impl.breaks!] });
    }
    expect(listings.filter((q) => q.kind === 'broken').length).toBeGreaterThan(10);
    expect(by('process:CMD ARGS').kind).toBe('process');
  });

  it('prints them by kind, each broken variant with its mistake and what it breaks', async () => {
    const result = await cli(['queues']);
    expect(result.exitCode, result.stderr).toBe(0);
    const text = result.stdout;
    const headings = ['The reference queue', 'Real queues, observed', 'Broken variants', 'Any queue, over the process protocol'];
    const at = headings.map((heading) => text.indexOf(heading));
    expect(at.every((i) => i >= 0) && at.every((i, n) => n === 0 || i > at[n - 1]!), text).toBe(true);
    expect(text).toContain(
      `  sketch-literal (also seed-literal)  queue-drill ${toolVersion()} (SQLite)\n` +
        '      its mistake: the queue sketch as written: claim never takes running jobs back; refused writes pass silently\n' +
        '      breaks: no-lost-job, lease-released, single-holder\n',
    );
  });

  it.each(['run', 'worker', 'coordinator', 'status', 'history', 'approve', 'explore', 'soak', 'contract'])(
    '%s --help points to queue-drill queues for --queue, not the self-test',
    async (command) => {
      const help = (await cli([command, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help).toMatch(/--queue .*\(queue-drill queues lists them\)/);
      expect(help).not.toMatch(/selftest (--help )?lists/);
    },
  );
});
