/** The tests' RFC 6238 helper against the RFC's own test vectors (SHA-1 seed, Appendix B). */
import { describe, expect, it } from 'vitest';
import { base32Bytes, totp } from '../../helpers/totp.js';

const SEED = Buffer.from('12345678901234567890');

describe('RFC 6238 TOTP helper', () => {
  it('gives the RFC test vectors (8 digits) and their last six digits', () => {
    expect(totp(SEED, 59_000, 8)).toBe('94287082');
    expect(totp(SEED, 1_111_111_109_000, 8)).toBe('07081804');
    expect(totp(SEED, 20_000_000_000_000, 8)).toBe('65353130');
    expect(totp(SEED, 59_000)).toBe('287082');
  });

  it('reads base32 secrets as authenticator apps do, grouped or not, and refuses other letters', () => {
    expect(base32Bytes('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')).toEqual(SEED);
    expect(base32Bytes('gezd gnbv gy3t qojq gezd gnbv gy3t qojq')).toEqual(SEED);
    expect(() => base32Bytes('GEZD1')).toThrow(/not base32: '1'/);
  });
});
