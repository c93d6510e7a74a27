/**
 * The `against` option of an upload (the version it answers) and the versions uploaded beside an
 * upload for it: read as intake reads them, refused with a message naming what is allowed.
 */
import { describe, expect, it } from 'vitest';
import { isJobOptionError, readJobOptions } from '../../../lambdas/core/intake/job-options.js';
import { isVersionUpload, versionKeyOf } from '../../../lambdas/core/intake/negotiation-round.js';

const defaults = { lane: 'realtime' as const, ceilingMicros: 1_000_000 };
const read = (against: string) => readJobOptions({ against }, {}, defaults).against;

describe('the version an upload answers', () => {
  it('is an earlier job or a file beside the upload', () => {
    expect(read('j-0123456789abcdef0123')).toEqual({ jobId: 'j-0123456789abcdef0123' });
    expect(read('file:Our draft (v3).docx')).toEqual({ file: 'Our draft (v3).docx' });
    expect(readJobOptions({}, {}, defaults).against).toBeUndefined();
  });

  it.each(['j-123', 's-0123456789abcdef0123', 'file:../x.docx', 'file:a/b.docx', 'file:', 'ours.docx'])(
    'refuses %s, naming what it may be',
    (value) => {
      let error: unknown;
      try {
        read(value);
      } catch (e) {
        error = e;
      }
      expect(isJobOptionError(error)).toBe(true);
      expect((error as Error).message).toMatch(/'against' option .*j- and 20 hex digits.*file:NAME/);
    },
  );

  it('is read from the upload’s own folder, where intake makes no job of it', () => {
    expect(versionKeyOf('incoming/s-0123456789abcdef0123/theirs.docx', 'ours.docx')).toBe(
      'incoming/s-0123456789abcdef0123/against/ours.docx',
    );
    expect(versionKeyOf('incoming/theirs.docx', 'ours.docx')).toBe('incoming/against/ours.docx');
    expect(isVersionUpload('incoming/s-0123456789abcdef0123/against/ours.docx')).toBe(true);
    expect(isVersionUpload('incoming/against.docx')).toBe(false);
    expect(isVersionUpload('incoming/against/deeper/ours.docx')).toBe(false);
  });
});
