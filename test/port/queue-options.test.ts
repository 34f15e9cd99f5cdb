import { describe, expect, it } from 'vitest';
import { QueueOptionError, queueOptionFlags, queueOptionsFromEnv, resolveQueueOptions } from '../../src/port/queue-options.js';

const SPECS = {
  job_key_mode: { describe: 'how a key enqueued again is handled', default: 'replace', type: { oneOf: ['replace', 'preserve_run_at'] } },
  release_dead_locks: { describe: 'the coordinator frees dead locks', default: false, type: 'boolean' },
  poll_ms: { describe: 'how often to poll', default: 2000, type: 'number' },
} as const;

describe('queue options', () => {
  it('fill in every default, and take a given value as its type', () => {
    expect(resolveQueueOptions('q', SPECS, {})).toEqual({ job_key_mode: 'replace', release_dead_locks: false, poll_ms: 2000 });
    expect(resolveQueueOptions('q', SPECS, { release_dead_locks: 'true', poll_ms: '50', job_key_mode: 'preserve_run_at' })).toEqual({
      job_key_mode: 'preserve_run_at',
      release_dead_locks: true,
      poll_ms: 50,
    });
  });

  it('refuse a key the queue does not accept, or a value it cannot take, naming what it accepts', () => {
    expect(() => resolveQueueOptions('q', SPECS, { job_key_mod: 'replace' })).toThrow(
      /queue option job_key_mod is not one q accepts: it accepts job_key_mode \(replace \| preserve_run_at; default replace\)/,
    );
    expect(() => resolveQueueOptions('q', SPECS, { job_key_mode: 'unsafe' })).toThrow(QueueOptionError);
    expect(() => resolveQueueOptions('q', SPECS, { release_dead_locks: 'yes' })).toThrow(/true or false/);
    expect(() => resolveQueueOptions('q', SPECS, { poll_ms: 'soon' })).toThrow(/a number/);
    expect(() => resolveQueueOptions('sqlite', undefined, { x: '1' })).toThrow(/it accepts none/);
  });

  it('from the command line: QUEUE:KEY=VALUE for one queue, KEY=VALUE for each queue that accepts it', () => {
    const queues = [{ name: 'graphile-worker', options: SPECS }, { name: 'sqlite' }];
    expect(queueOptionFlags(['graphile-worker:job_key_mode=preserve_run_at', 'poll_ms=5'], queues)).toEqual({
      'graphile-worker': { job_key_mode: 'preserve_run_at', poll_ms: '5' },
    });
    // A key nobody accepts still goes somewhere, so its queue's check names what it accepts.
    expect(queueOptionFlags(['nope=1'], queues)).toEqual({ 'graphile-worker': { nope: '1' } });
    expect(() => queueOptionFlags(['bullmq:x=1'], queues)).toThrow(/bullmq is not a queue this command runs/);
    expect(() => queueOptionFlags(['novalue'], queues)).toThrow(/expected \[QUEUE:\]KEY=VALUE/);
  });

  it('reach a drill process through its environment', () => {
    expect(queueOptionsFromEnv({})).toEqual({});
    expect(queueOptionsFromEnv({ QD_QUEUE_OPTIONS: '{"a":true}' })).toEqual({ a: true });
    expect(() => queueOptionsFromEnv({ QD_QUEUE_OPTIONS: '[1]' })).toThrow(QueueOptionError);
  });
});
