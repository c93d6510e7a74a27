/**
 * RFC 6238 time-based one-time passwords (HMAC-SHA1, 6 digits, 30-second steps), as an
 * authenticator app computes them from the secret Cognito's AssociateSoftwareToken gives
 * (https://www.rfc-editor.org/rfc/rfc6238,
 * https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-settings-mfa-totp.html).
 */
import { createHmac } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The bytes of a base32 secret (RFC 4648; padding, spaces and case ignored). */
export function base32Bytes(secret: string): Buffer {
  let bits = '';
  for (const c of secret.toUpperCase().replace(/[\s=]/g, '')) {
    const v = BASE32.indexOf(c);
    if (v < 0) throw new Error(`not base32: '${c}' in the secret`);
    bits += v.toString(2).padStart(5, '0');
  }
  return Buffer.from((bits.match(/.{8}/g) ?? []).map((b) => Number.parseInt(b, 2)));
}

/** The code of `key` at `atMs` (milliseconds since the epoch); `digits` 6 as Cognito asks. */
export function totp(key: Buffer, atMs = Date.now(), digits = 6): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(atMs / 30_000)));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = (mac.at(-1) ?? 0) & 0x0f;
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}

/**
 * The current code of a base32 secret, first waiting out a step with less than `marginMs` left
 * so the code is still current when it arrives.
 */
export async function freshCode(secret: string, marginMs = 6_000): Promise<string> {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
  return totp(base32Bytes(secret));
}
