import { describe, expect, it } from 'vitest';
import { printedCommand } from '../../src/kernel/printed-command.js';
import { REDACTED, redact } from '../../src/kernel/redact.js';
import { commandLineSecrets, redactCommandLine } from '../../src/kernel/redact-command-line.js';

const R = REDACTED;

describe('redactCommandLine', () => {
  it.each([
    {
      name: "a --pg-url's password",
      line: 'queue-drill run s.yaml --queue postgres --pg-url postgres://app:pw7Qx91zLm@db:5432/q',
      expected: `queue-drill run s.yaml --queue postgres --pg-url postgres://app:${R}@db:5432/q`,
    },
    {
      name: "a --redis-url's password with no user",
      line: 'queue-drill run s.yaml --redis-url=redis://:rpw3Kd82nV@127.0.0.1:6379',
      expected: `queue-drill run s.yaml --redis-url=redis://:${R}@127.0.0.1:6379`,
    },
    {
      name: "a quoted URL's password that holds shell characters",
      line: "queue-drill run s.yaml --pg-url 'postgres://app:p!w$d@db/q'",
      expected: `queue-drill run s.yaml --pg-url 'postgres://app:${R}@db/q'`,
    },
    {
      name: 'a key=value and a --flag value inside a process: word',
      line: "queue-drill run s.yaml --queue 'process:python3 q.py --auth-token flag8Rb66 api_token=kv5Tz04p -v'",
      expected: `queue-drill run s.yaml --queue 'process:python3 q.py --auth-token ${R} api_token=${R} -v'`,
    },
    {
      name: 'a --flag=value and a -flag value',
      line: 'x --password=hunter22 -secret s3cr3tval --seed 3',
      expected: `x --password=${R} -secret ${R} --seed 3`,
    },
    {
      name: 'a double-quoted value after a secret flag',
      line: 'process:q.py --api-key "a b c" next',
      expected: `process:q.py --api-key ${R} next`,
    },
    {
      name: 'an environment assignment before the command',
      line: "--queue 'process:env PGPASSWORD=abc12345 python3 q.py'",
      expected: `--queue 'process:env PGPASSWORD=${R} python3 q.py'`,
    },
    { name: 'a Stripe key anywhere', line: 'q.py --note sk_live_51HxQplanted0000Key', expected: `q.py --note ${R}` },
  ])('redacts $name', ({ line, expected }) => {
    expect(redactCommandLine(line)).toBe(expected);
  });

  it.each([
    { name: 'a flag that takes a file', line: 'q.py --token-file /run/secrets/token --password-file ./pw' },
    { name: '--baseline /etc/passwd', line: 'queue-drill run s.yaml --baseline /etc/passwd' },
    { name: 'a flag that names a secret followed by another flag', line: 'q.py --no-auth --seed 3' },
    { name: 'a URL with no password', line: 'queue-drill run s.yaml --pg-url postgres://postgres@127.0.0.1:5432/postgres' },
    {
      name: 'ordinary options',
      line: 'queue-drill run scenarios.yaml --only secrets-stay-out --queue-option lease_ms=400 --expect-broken secrets-redacted',
    },
  ])('keeps $name', ({ line }) => {
    expect(redactCommandLine(line)).toBe(line);
  });

  it('redacts what printedCommand quotes: a process queue whose command holds a quote', () => {
    const line = printedCommand(['run', 's.yaml', '--queue', "process:python3 it's.py --token tok3nV4lue9"]);
    expect(line).toContain('tok3nV4lue9');
    expect(redactCommandLine(line)).not.toContain('tok3nV4lue9');
  });

  it('names the secrets it redacts, unquoted, so a text that repeats them loses them too', () => {
    const line = 'run --pg-url postgres://a:pgpw12345@h/d --queue \'process:q.py --token "t o k" api_key=kv123456\'';
    expect(commandLineSecrets(line).sort()).toEqual(['kv123456', 'pgpw12345', 't o k']);
    expect(commandLineSecrets('run --token-file /x --baseline /etc/passwd')).toEqual([]);
  });
});

describe('redact: a path is never a secret', () => {
  it.each([
    { text: '/etc/passwd: could not read a report there', name: 'a file named passwd' },
    { text: 'cannot open /home/me/.config/token: permission denied', name: 'a file named token' },
    { text: 'ENOENT: no such file or directory, open ./secrets/api_key: gone', name: 'a relative path' },
  ])('keeps $name whole', ({ text }) => {
    expect(redact(text)).toBe(text);
  });

  it('still redacts a credential after a path', () => {
    expect(redact('/etc/app.conf: password: hunter22')).toBe(`/etc/app.conf: password: ${R}`);
    expect(redact('/etc/passwd: password=hunter22')).toBe(`/etc/passwd: password=${R}`);
  });
});
