import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { replayServerFlags, urlWordWithoutPassword } from '../../src/drill/replay-servers.js';
import { replayCommand } from '../../src/drill/run-drill.js';
import { redact } from '../../src/kernel/redact.js';
import { queueImpl } from '../../src/queues/registry.js';

/*
 * A replay reaches the servers its run was given on the command line, and
 * never prints a password: the shell fills it in from a variable, and stops
 * with a message saying to set it when it is not set. Checked by running the
 * printed words through a real POSIX shell.
 */

/** What `sh` makes of `word`, with `env` set. */
async function shellReads(word: string, env: Record<string, string> = {}) {
  return execa('sh', ['-c', `printf '%s\\n' ${word}`], { reject: false, env: { PATH: process.env.PATH ?? '', ...env }, extendEnv: false });
}

// A queue as the scenario names it (an alias stays an alias), with the servers it needs.
const named = (name: string) => ({ name, needs: queueImpl(name).needs });

describe('a replay command', () => {
  it('carries --pg-url given on the command line, with its password left to QD_PG_PASSWORD', () => {
    const replay = replayCommand(
      'scenarios.yaml',
      'lease-expiry-takeover',
      3,
      named('postgres'),
      1,
      {},
      {
        pgUrl: 'postgres://drill:s3cret-pw@db.internal:5433/drills',
      },
    );
    expect(replay).toMatch(/ run scenarios\.yaml --only lease-expiry-takeover --seed 3 --queue postgres --pg-url \S/);
    expect(replay).toContain(`--pg-url postgres://drill:"\${QD_PG_PASSWORD?set QD_PG_PASSWORD to the PostgreSQL password}"@db.internal:5433/drills`);
    expect(replay).not.toContain('s3cret-pw');
    // The report's redaction leaves it whole: it holds no secret, and the shell must still read it.
    expect(redact(replay)).toBe(replay);
  });

  it('carries a URL without a password as it is, and only the servers its queue needs', () => {
    const servers = { pgUrl: 'postgres://postgres@127.0.0.1:5432/postgres', redisUrl: 'redis://127.0.0.1:6380' };
    expect(replayCommand('s.yaml', 'a', 1, named('pg-boss'), 1, {}, servers)).toMatch(/--pg-url postgres:\/\/postgres@127\.0\.0\.1:5432\/postgres$/);
    expect(replayCommand('s.yaml', 'a', 1, named('bullmq'), 1, {}, servers)).toMatch(/--queue bullmq --redis-url redis:\/\/127\.0\.0\.1:6380$/);
    expect(replayCommand('s.yaml', 'a', 1, named('sqlite'), 1, {}, servers)).toMatch(/--queue sqlite$/);
    expect(replayCommand('s.yaml', 'a', 1, named('postgres'), 1, {}, {})).toMatch(/--queue postgres$/);
  });

  it.each([
    ['a user password', 'postgres://drill:s3cret@127.0.0.1:5432/postgres', 's3cret', 'QD_PG_PASSWORD', 'PostgreSQL'],
    ['a password with spaces, quotes and a $', `postgres://drill:x y"z$HOME'@127.0.0.1/db`, `x y"z$HOME'`, 'QD_PG_PASSWORD', 'PostgreSQL'],
    ['Redis with an empty user', 'redis://:s3cret@127.0.0.1:6379/0', 's3cret', 'QD_REDIS_PASSWORD', 'Redis'],
    ['a password= parameter', 'postgres://drill@127.0.0.1/db?sslmode=disable&password=s3cret', 's3cret', 'QD_PG_PASSWORD', 'PostgreSQL'],
  ])('reads back in a shell as the URL once the variable holds the password (%s)', async (_what, url, password, variable, server) => {
    const word = urlWordWithoutPassword(url, variable, server);
    expect(word).not.toContain(password);
    const set = await shellReads(word, { [variable]: password });
    expect(set.exitCode, set.stderr).toBe(0);
    expect(set.stdout).toBe(url);
    const unset = await shellReads(word);
    expect(unset.exitCode).not.toBe(0);
    expect(unset.stderr).toContain(`set ${variable} to the ${server} password`);
  });

  it('names no server the command line did not give', () => {
    expect(replayServerFlags({}, ['pgUrl', 'redisUrl'])).toEqual([]);
    expect(replayServerFlags({ pgUrl: '' }, ['pgUrl'])).toEqual([]);
  });
});
