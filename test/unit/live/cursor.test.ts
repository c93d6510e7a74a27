import { describe, expect, it } from 'vitest';
import {
  CursorError,
  decodeFindingsCursor,
  encodeFindingsCursor,
  isCursorError,
  isLiveReadError,
  LiveReadError,
} from '../../../lambdas/core/live/index.js';

describe('the findings cursor', () => {
  it('is the set of chunks delivered, in any order, and reads back as that set', () => {
    const delivered = [0, 3, 9, 17, 2499];
    const cursor = encodeFindingsCursor(delivered);
    expect(cursor).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect([...decodeFindingsCursor(cursor, 2500)].sort((a, b) => a - b)).toEqual(delivered);
    // 2,500 chunks fit in a short query string.
    expect(encodeFindingsCursor(Array.from({ length: 2500 }, (_, i) => i)).length).toBe(421);
    expect(decodeFindingsCursor('', 10).size).toBe(0);
    expect(decodeFindingsCursor(encodeFindingsCursor([]), 10).size).toBe(0);
  });

  it('refuses a cursor that is not one, or names chunks the job does not have', () => {
    const refusal = (cursor: string, chunks: number) => {
      try {
        decodeFindingsCursor(cursor, chunks, 'j-1');
      } catch (error) {
        return error;
      }
      throw new Error('expected a refusal');
    };
    const wrongPrefix = refusal('chunk-3', 10);
    expect(isCursorError(wrongPrefix)).toBe(true);
    expect(isLiveReadError(wrongPrefix)).toBe(true);
    expect((wrongPrefix as CursorError).message).toMatch(/does not start with 'v1\.'/);
    expect((wrongPrefix as CursorError).jobId).toBe('j-1');
    expect((refusal('v1.a+b/', 10) as Error).message).toMatch(/not base64url/);
    expect((refusal(encodeFindingsCursor([12]), 12) as Error).message).toMatch(
      /names (chunk 12|more chunks)/,
    );
    expect((refusal(encodeFindingsCursor([7]), 7) as Error).message).toMatch(
      /names chunk 7, and the job has 7/,
    );
  });

  it('has guards that tell its errors from others', () => {
    expect(isCursorError(new LiveReadError('x'))).toBe(false);
    expect(isLiveReadError(new Error('x'))).toBe(false);
    expect(new CursorError('m', 'c').name).toBe('CursorError');
  });
});
