import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

/**
 * BullMQ's Lua scripts by the SHA-1 its client calls them with (EVALSHA): the
 * installed BullMQ's own scripts, as its RedisConnection defines them with
 * ioredis (`lua: content`, named `NAME:VERSION`), so a network fault can aim at
 * `moveToFinished` by name.
 */
export async function bullmqScriptNames(): Promise<ReadonlyMap<string, string>> {
  const require = createRequire(import.meta.url);
  const scripts = require('bullmq/dist/cjs/scripts/index.js') as Record<string, { name: string; content: string }>;
  return new Map(Object.values(scripts).map((script) => [createHash('sha1').update(script.content).digest('hex'), script.name]));
}
