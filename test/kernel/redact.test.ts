import { describe, expect, it } from 'vitest';
import { MAX_ERROR_LENGTH, REDACTED, redact, secretsInPayload, storableError } from '../../src/kernel/redact.js';

const R = REDACTED;
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const GHP = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';

describe('redact: secret shapes', () => {
  it.each([
    { name: 'a bearer token', text: 'Authorization: Bearer abc123.def456-ghi', expected: `Authorization: Bearer ${R}` },
    { name: 'a basic credential', text: 'authorization: Basic dXNlcjpwYXNz', expected: `authorization: Basic ${R}` },
    { name: 'password=', text: 'login failed: password=hunter2&user=bob', expected: `login failed: password=${R}&user=bob` },
    { name: 'passwd: with spaces', text: 'passwd : hunter2 then', expected: `passwd : ${R} then` },
    { name: 'a token= query parameter', text: 'GET /cb?access_token=abc123&x=1', expected: `GET /cb?access_token=${R}&x=1` },
    { name: 'client_secret=', text: 'client_secret=s3cr3t;', expected: `client_secret=${R};` },
    { name: '"api_key":"..." in JSON', text: 'body {"api_key":"abcd1234efgh","n":1}', expected: `body {"api_key":"${R}","n":1}` },
    { name: '"apiKey" with spaces', text: '{"apiKey" : "abc\\"d1234"}', expected: `{"apiKey" : "${R}"}` },
    { name: '"password" in JSON', text: '{"user":"bob","password":"p a s s"}', expected: `{"user":"bob","password":"${R}"}` },
    { name: 'a Cookie header', text: 'Cookie: sid=abc123; theme=dark\nnext line', expected: `Cookie: ${R}\nnext line` },
    { name: 'a Set-Cookie header', text: 'set-cookie: sid=abc123; HttpOnly', expected: `set-cookie: ${R}` },
    { name: 'user:pass@ in a URL', text: 'GET https://bob:s3cr3t@example.com/x failed', expected: `GET https://bob:${R}@example.com/x failed` },
    { name: 'user:pass@ in a database URL', text: 'postgres://app:pw1234@db:5432/q', expected: `postgres://app:${R}@db:5432/q` },
    { name: 'a JWT', text: `token ${JWT} rejected`, expected: `token ${R} rejected` },
    { name: 'an sk- key', text: 'key sk-proj-AbCdEfGhIjKlMnOpQrSt was revoked', expected: `key ${R} was revoked` },
    { name: 'a ghp_ token', text: `push with ${GHP} denied`, expected: `push with ${R} denied` },
    { name: 'a github_pat_ token', text: 'github_pat_11ABCDEFG0123456789_abcdefghij', expected: R },
    { name: 'a Slack token', text: 'xoxb-123456789012-abcdefghij', expected: R },
    { name: 'an AWS access key id', text: 'AKIAIOSFODNN7EXAMPLE is not allowed', expected: `${R} is not allowed` },
  ])('redacts $name', ({ text, expected }) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    { name: 'a Visa number', text: 'card 4111111111111111 declined' },
    { name: 'grouped by spaces', text: 'card 4111 1111 1111 1111 declined' },
    { name: 'grouped by dashes', text: 'card 4111-1111-1111-1111 declined' },
    { name: 'a Mastercard number', text: 'card 5555555555554444 declined' },
    { name: 'a 15-digit Amex number, grouped', text: 'card 3782 822463 10005 declined' },
    { name: 'a Discover number', text: 'card 6011111111111117 declined' },
  ])('redacts a Luhn-valid card number: $name', ({ text }) => {
    expect(redact(text)).toBe(`card ${R} declined`);
  });

  it.each([
    { name: 'a card followed by an amount', text: 'card 4111111111111111 10 EUR', expected: `card ${R} 10 EUR` },
    { name: 'a card after a number', text: 'qty 12 4111 1111 1111 1111 end', expected: `qty 12 ${R} end` },
    { name: 'a card followed by an expiry', text: '4111-1111-1111-1111 12 27', expected: `${R} 12 27` },
    { name: 'a card between long numbers', text: '5555 5555 4111 1111 1111 1111 9999', expected: `5555 5555 ${R} 9999` },
  ])('redacts a card next to other numbers: $name', ({ text, expected }) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    { name: 'a 16-digit number failing the Luhn check', text: 'order 4111111111111112 failed' },
    { name: 'the same, grouped', text: 'order 4111 1111 1111 1112 failed' },
    { name: 'a 12-digit Luhn-valid number (too short for a card)', text: 'ref 000000000000 ok' },
    { name: 'a 20-digit number', text: 'trace 41111111111111111111' },
    { name: 'ordinary text', text: 'job 42 failed after 3 of 5 attempts: HTTP 503 Service Unavailable' },
    { name: 'a stored timestamp', text: 'lease until 2026-08-25T10:00:30.000Z expired' },
    { name: 'an idempotency key', text: 'idempotency_key=order:1234:charge' },
    { name: 'a URL without credentials', text: 'POST https://example.com:8443/pay?id=7 timed out' },
    { name: 'a word ending in a secret name without a value', text: 'the password was wrong; try the token again' },
  ])('leaves $name alone', ({ text }) => {
    expect(redact(text)).toBe(text);
  });
});

describe('redact: secrets a pattern used to miss', () => {
  it.each([
    { name: 'a quoted value after password:', text: 'pwd: "hunter2 x"', expected: `pwd: "${R}"` },
    { name: 'a single-quoted value after password=', text: "password='hunter2 x'", expected: `password='${R}'` },
    { name: 'a Node inspect of an options object', text: "{ user: 'bob', password: 'hunter2' }", expected: `{ user: 'bob', password: '${R}' }` },
    { name: 'a Python dict repr', text: "{'user': 'bob', 'api_key': 'abc123'}", expected: `{'user': 'bob', 'api_key': '${R}'}` },
    { name: 'SECRET_KEY=', text: 'SECRET_KEY=abc123456 missing', expected: `SECRET_KEY=${R} missing` },
    { name: '"secret_key" in JSON', text: '{"secret_key":"abc123456"}', expected: `{"secret_key":"${R}"}` },
    { name: 'a number under "password" in JSON', text: '{"pin_password": 12345678}', expected: `{"pin_password": "${R}"}` },
    { name: 'a URL password holding an @', text: 'https://bob:p@ss@example.com/x', expected: `https://bob:${R}@example.com/x` },
    { name: 'a Stripe secret key', text: 'key sk_live_51HabcdefGHIJKLmnop rejected', expected: `key ${R} rejected` },
  ])('redacts $name', ({ text, expected }) => {
    expect(redact(text)).toBe(expected);
  });
});

describe('redact: known secrets', () => {
  it('replaces every occurrence of a known value, wherever it appears', () => {
    const secret = 'Tr0ub4dor&3';
    const text = `pw ${secret}, again:${secret}; inside a word x${secret}y and in a url http://h/${secret}`;
    const out = redact(text, [secret]);
    expect(out).not.toContain(secret);
    expect(out).toBe(`pw ${R}, again:${R}; inside a word x${R}y and in a url http://h/${R}`);
  });

  it('replaces a secret that contains another one whole', () => {
    expect(redact('a=abcdefgh', ['abcd', 'abcdefgh']).endsWith(`=${R}`)).toBe(true);
    expect(redact('see abcdefgh and abcd', ['abcd', 'abcdefgh'])).toBe(`see ${R} and ${R}`);
  });

  it('ignores values too short to be secrets (and the empty string)', () => {
    expect(redact('job 1 of 3', ['', '1', 'of'])).toBe('job 1 of 3');
  });

  it('does not change the list it is given', () => {
    const secrets = ['short', 'a-much-longer-one'];
    redact('x', secrets);
    expect(secrets).toEqual(['short', 'a-much-longer-one']);
  });
});

describe('storableError', () => {
  it.each([
    { name: 'an Error', error: new TypeError('bad input'), expected: 'TypeError: bad input' },
    { name: 'a string', error: 'plain text', expected: 'plain text' },
    { name: 'a number', error: 7, expected: '7' },
    { name: 'an Error with a secret', error: new Error('password=hunter2'), expected: `Error: password=${R}` },
  ])('stores $name as text, redacted', ({ error, expected }) => {
    expect(storableError(error)).toBe(expected);
  });

  it('keeps the last 500 characters', () => {
    const text = `${'a'.repeat(1_000)}${'b'.repeat(MAX_ERROR_LENGTH - 1)}Z`;
    const stored = storableError(text);
    expect(MAX_ERROR_LENGTH).toBe(500);
    expect(stored).toHaveLength(MAX_ERROR_LENGTH);
    expect(stored).toBe(`${'b'.repeat(MAX_ERROR_LENGTH - 1)}Z`);
    expect(storableError('short')).toBe('short');
  });

  it('redacts before it cuts: a known secret across the cut leaves no part of itself', () => {
    const secret = 'K9x!mW2#qT7vP4zL';
    // The cut (500 characters before the end) falls in the middle of the secret.
    const text = `${'-'.repeat(300)}${secret}${'.'.repeat(MAX_ERROR_LENGTH - 8)}`;
    const stored = storableError(text, [secret]);
    expect(stored.length).toBeLessThanOrEqual(MAX_ERROR_LENGTH);
    for (let i = 0; i + 4 <= secret.length; i++) expect(stored).not.toContain(secret.slice(i, i + 4));
    expect(stored.endsWith('.'.repeat(MAX_ERROR_LENGTH - 8))).toBe(true);
  });

  it('redacts before it cuts: a password= whose name falls off the cut is still redacted', () => {
    const value = 'correcthorsebatterystaple';
    const text = `${'-'.repeat(300)}password=${value} ${'.'.repeat(MAX_ERROR_LENGTH - 10)}`;
    const stored = storableError(text);
    expect(stored).not.toContain('staple');
    expect(stored).not.toContain('battery');
  });
});

describe('secretsInPayload', () => {
  it('finds strings under secret-sounding names, at any depth', () => {
    const payload = {
      user: 'bob',
      password: 'hunter2',
      apiKey: 'abc-123',
      nested: { client_secret: 'cs-456', list: [{ refreshToken: 'rt-789' }], authorization: 'Token zzz' },
      headers: { Cookie: 'sid=1', 'X-Session': 'sess-1' },
      card: '4000 0000 0000 0002',
      cvv: '123',
      secret_key: 'sk-name-only',
    };
    expect(new Set(secretsInPayload(payload))).toEqual(
      new Set(['hunter2', 'abc-123', 'cs-456', 'rt-789', 'Token zzz', 'sid=1', 'sess-1', '4000 0000 0000 0002', '123', 'sk-name-only']),
    );
  });

  it('finds strings under plural secret names', () => {
    const payload = { credentials: 'bob:pa55', tokens: ['tok-one', 'tok-two'], cookies: 'sid=1' };
    expect(new Set(secretsInPayload(payload))).toEqual(new Set(['bob:pa55', 'tok-one', 'tok-two', 'sid=1']));
  });

  it('finds strings of a secret shape under any name', () => {
    const payload = {
      note: 'sk-proj-AbCdEfGhIjKlMnOpQrSt',
      items: ['plain', GHP, { text: 'pay with 4111 1111 1111 1111' }],
      url: 'https://bob:s3cr3t@example.com/',
    };
    expect(new Set(secretsInPayload(payload))).toEqual(
      new Set(['sk-proj-AbCdEfGhIjKlMnOpQrSt', GHP, 'pay with 4111 1111 1111 1111', 'https://bob:s3cr3t@example.com/']),
    );
  });

  it('ignores ordinary values, non-strings and secret names holding no string', () => {
    expect(secretsInPayload({ to: 'alice@example.com', amount: 12, password: 1234, token: null, ok: true })).toEqual([]);
    expect(secretsInPayload('just a string')).toEqual([]);
    expect(secretsInPayload(null)).toEqual([]);
  });

  it('lists a value once however often it appears', () => {
    expect(secretsInPayload({ password: 'hunter2', again: { password: 'hunter2' } })).toEqual(['hunter2']);
  });

  it('feeds redact: a payload secret is gone from an error that echoes it', () => {
    const payload = { account: 'acme', apiKey: 'plainvalue123' };
    const error = new Error('upstream said: invalid key plainvalue123 for acme');
    const stored = storableError(error, secretsInPayload(payload));
    expect(stored).toBe(`Error: upstream said: invalid key ${R} for acme`);
  });
});

describe('redact: the shapes the design names that were missed', () => {
  const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1x\nq2Vx+Yz==\n-----END RSA PRIVATE KEY-----';
  it.each([
    { name: 'Authorization: Token', text: 'GET /api Authorization: Token 9f8e7d6c5b4a then 401', expected: `GET /api Authorization: Token ${R}` },
    { name: 'Authorization with no scheme', text: 'authorization: hunter2secret', expected: `authorization: ${R}` },
    {
      name: 'Proxy-Authorization: Digest',
      text: 'Proxy-Authorization: Digest username="u", response="abc"',
      expected: `Proxy-Authorization: Digest ${R}"`,
    },
    {
      name: 'an Authorization header inside a JSON log line',
      text: '{"error":"HTTP 401: Authorization: Token abc123def","job":4}',
      expected: `{"error":"HTTP 401: Authorization: Token ${R}","job":4}`,
    },
    { name: 'a Cookie header inside a JSON log line', text: '{"sent":"Cookie: sid=abc123def","n":1}', expected: `{"sent":"Cookie: ${R}","n":1}` },
    {
      name: 'a signature in a presigned URL',
      text: 'GET https://b.s3.example/o?X-Amz-Credential=AKIDX%2F1&X-Amz-Signature=0f1e2d3c&x=1',
      expected: `GET https://b.s3.example/o?X-Amz-Credential=${R}&X-Amz-Signature=${R}&x=1`,
    },
    {
      name: 'a key= and a sig= in a query string',
      text: 'https://maps.example/api?key=AIzaSyD-123&sig=abc%3D&zoom=3',
      expected: `https://maps.example/api?key=${R}&sig=${R}&zoom=3`,
    },
    { name: 'an OAuth code in a callback', text: 'GET /callback?code=4%2F0AX4XfWh&state=xyz', expected: `GET /callback?code=${R}&state=xyz` },
    { name: 'a PEM private key over many lines', text: `loaded key:\n${PEM}\nok`, expected: `loaded key:\n${R}\nok` },
  ])('redacts $name', ({ text, expected }) => {
    expect(redact(text)).toBe(expected);
  });

  it('leaves a query string without credentials alone, and an idempotency key in a log line', () => {
    for (const text of ['GET /search?q=cats&page=2&sort=new', '{"event":"claimed","key":"a813a9e1c4e4885f","job_id":"4"}'])
      expect(redact(text)).toBe(text);
  });

  it('redacts a known secret in each spelling it takes in a log line: as is, JSON-escaped (once and twice), URL-encoded', () => {
    const secret = 'pa"ss\\word\nline two&x=1';
    const escaped = JSON.stringify(secret).slice(1, -1);
    const twice = JSON.stringify(escaped).slice(1, -1);
    const line = `raw ${secret} | json ${escaped} | twice ${twice} | url ${encodeURIComponent(secret)}`;
    expect(redact(line, [secret])).toBe(`raw ${R} | json ${R} | twice ${R} | url ${R}`);
  });

  it('redacts a multi-line secret split across the lines of a log', () => {
    const secret = 'first-half-of-it\nsecond-half-of-it';
    expect(redact(`begin\n${secret}\nend`, [secret])).toBe(`begin\n${R}\nend`);
  });
});

describe('secretsInPayload: nested under a secret-sounding name', () => {
  it('takes every string under a secret-named object or list as secret', () => {
    const payload = {
      credentials: { user: 'bob-the-user', value: 'plain-looking-1' },
      tokens: ['first-plain', { v: 'second-plain' }],
      ok: 'not secret',
    };
    expect(new Set(secretsInPayload(payload))).toEqual(new Set(['bob-the-user', 'plain-looking-1', 'first-plain', 'second-plain']));
  });
});
