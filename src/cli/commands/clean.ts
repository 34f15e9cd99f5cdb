import { defineCommand } from '../command.js';

/** `queue-drill clean`: removes what drills that are gone left on the servers (schemas, databases, key prefixes), and says what. */
export const cleanCommand = defineCommand({
  name: 'clean',
  describe:
    'remove the PostgreSQL schemas and databases and the Redis key prefixes of drills that are gone (killed, or cut off from their server), ' +
    'judged by the owner mark each drill leaves on them; never a running drill’s, nor anything unmarked',
  options: {
    'pg-url': { type: 'string', describe: 'PostgreSQL to sweep [default: QD_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres]' },
    'redis-url': { type: 'string', describe: 'Redis to sweep [default: QD_REDIS_URL, else redis://127.0.0.1:6379]' },
    under: { type: 'string', describe: 'only what drills whose run directory lies under this folder left (their --out) [default: every drill]' },
    'include-kept': { type: 'boolean', default: false, describe: 'also remove what --keep kept, once its drill is over' },
    'dry-run': { type: 'boolean', default: false, describe: 'say what would be removed, remove nothing' },
    json: { type: 'boolean', default: false, describe: 'print what was found and done as JSON' },
  },
  async run(args) {
    const { sweepLeftovers } = await import('../../adapters/leftovers/sweep.js');
    const { renderSweep } = await import('../../adapters/leftovers/sweep-text.js');
    const { resolvePgUrl } = await import('../../adapters/pg/connection.js');
    const { resolveRedisUrl } = await import('../../adapters/bullmq/redis.js');
    const { EXIT } = await import('../../kernel/errors.js');
    const result = await sweepLeftovers({
      pgUrl: resolvePgUrl(args['pg-url']),
      redisUrl: resolveRedisUrl(args['redis-url']),
      dryRun: args['dry-run'],
      ...(args.under === undefined ? {} : { under: args.under }),
      includeKept: args['include-kept'],
    });
    process.stdout.write(args.json ? `${JSON.stringify(result, null, 2)}\n` : renderSweep(result));
    // A server nobody named (the local default) that is not there is no failure: there is nothing of a drill on it to sweep.
    const named = { PostgreSQL: Boolean(args['pg-url'] || process.env.QD_PG_URL), Redis: Boolean(args['redis-url'] || process.env.QD_REDIS_URL) };
    const unswept = result.servers.filter((s) => s.error !== null && (named[s.server] || s.error.kind === 'harness'));
    if (result.leftovers.some((l) => l.action === 'failed') || unswept.some((s) => s.error?.kind === 'harness'))
      process.exitCode = EXIT.harnessFailed;
    else if (unswept.length > 0) process.exitCode = EXIT.badInput;
    else process.exitCode = EXIT.ok;
  },
});
