/*
 * A secret stored encoded is still stored. A queue that keeps a failed job's
 * payload base64-encoded (or hex, or base64url in a URL) holds every secret in
 * it, and a search for the secret as written finds none. So the encodings are
 * searched for too, without decoding anything: the part of an encoding that
 * depends on the secret's bytes alone.
 *
 * Base64 turns every 3 bytes into 4 characters, so a secret inside a longer
 * text is encoded in one of three ways, by where it starts modulo 3. For each,
 * the characters made only of the secret's bits (not of its neighbours') are a
 * fixed string, present in any base64 of any text holding the secret there.
 * Hex is byte for byte: one string each for lower and upper case.
 */

/** Shorter than this a secret's encoded core (12 characters or fewer) could turn up by chance in other encoded text. */
export const MIN_ENCODED_SECRET = 8;

/** The characters of base64 (or base64url) made only of the secret's bits, for each of the three alignments. */
function base64Cores(bytes: Buffer, alphabet: 'base64' | 'base64url'): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet);
    // Character i holds bits [6i, 6i + 6); the secret's are [8 * offset, 8 * (offset + length)).
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    cores.push(encoded.slice(first, end));
  }
  return cores;
}

/** The spellings `text` takes base64-, base64url- and hex-encoded (as UTF-8), as substrings of any encoding holding it. */
export function encodedSpellings(text: string): string[] {
  const bytes = Buffer.from(text, 'utf8');
  const hex = bytes.toString('hex');
  return [...new Set([...base64Cores(bytes, 'base64'), ...base64Cores(bytes, 'base64url'), hex, hex.toUpperCase()])];
}
