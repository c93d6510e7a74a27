import { describe, expect, it } from 'vitest';
import { jobIdFor, jobIdOfPut } from '../../../lambdas/core/intake/job-id.js';

describe('job ids', () => {
  it('are the same for the same object version, and differ for another version or key', () => {
    const ref = { bucket: 'b', key: 'incoming/a.txt', versionId: 'v1' };
    expect(jobIdFor(ref)).toBe(jobIdFor({ ...ref }));
    expect(jobIdFor(ref)).toMatch(/^j-[0-9a-f]{20}$/);
    expect(jobIdFor({ ...ref, versionId: 'v2' })).not.toBe(jobIdFor(ref));
    expect(jobIdFor({ ...ref, key: 'incoming/b.txt' })).not.toBe(jobIdFor(ref));
  });

  it('of an upload come from what PutObject answered: the version id, else the ETag without quotes', () => {
    expect(jobIdOfPut('b', 'k', { VersionId: 'v1', ETag: '"e"' })).toBe(
      jobIdFor({ bucket: 'b', key: 'k', versionId: 'v1' }),
    );
    expect(jobIdOfPut('b', 'k', { ETag: '"e"' })).toBe(jobIdFor({ bucket: 'b', key: 'k', etag: 'e' }));
    expect(jobIdOfPut('b', 'k', {})).toBe(jobIdFor({ bucket: 'b', key: 'k' }));
  });
});
