import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodedSpellings, MIN_ENCODED_SECRET } from '../../src/kernel/encoded-spellings.js';
import { REDACTED, redact, secretSpellings } from '../../src/kernel/redact.js';

/*
 * A secret inside any text, the whole text encoded (base64, base64url, hex):
 * one of the secret's encoded spellings is in it, wherever the secret starts,
 * and redaction takes it out. Short secrets get no encoded spellings (their
 * core could turn up by chance).
 */

const ENCODINGS = ['base64', 'base64url', 'hex'] as const;

describe('a secret stored encoded', () => {
  it('is found in any encoding of any text holding it, at any offset', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: MIN_ENCODED_SECRET, maxLength: 40 }),
        fc.string({ maxLength: 10 }),
        fc.string({ maxLength: 10 }),
        fc.constantFrom(...ENCODINGS),
        (secret, before, after, encoding) => {
          const stored = Buffer.from(`${before}${secret}${after}`, 'utf8').toString(encoding);
          const found = encodedSpellings(secret).some((spelling) => stored.includes(spelling));
          expect(found).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is redacted from a log line that holds it base64-encoded', () => {
    const secret = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
    const line = `{"event":"failed","payload":"${Buffer.from(JSON.stringify({ key: secret, n: 1 })).toString('base64')}"}`;
    const clean = redact(line, [secret]);
    expect(clean).toContain(REDACTED);
    expect(encodedSpellings(secret).some((spelling) => clean.includes(spelling))).toBe(false);
  });

  it('gives a short secret no encoded spelling', () => {
    expect(secretSpellings('hunter2')).toEqual(['hunter2']);
    expect(secretSpellings('hunter22').length).toBeGreaterThan(1);
  });
});
