import { describe, expect, it } from 'vitest';
import { describePurge } from '../../../bin/commands/purge.js';
import {
  isJobNotEndedError,
  isPurgeError,
  isPurgeIncompleteError,
  JobNotEndedError,
  PurgeIncompleteError,
} from '../../../lambdas/core/purge/index.js';
import { JobNotFoundError } from '../../../lambdas/core/state/errors.js';

describe('purge errors', () => {
  it('name the job and what to do, and their guards tell them apart', () => {
    const notEnded = new JobNotEndedError('j-1', 'running');
    expect(notEnded.message).toMatch(/^job j-1 is running and has not ended.*cancel it/);
    expect(notEnded).toMatchObject({ name: 'JobNotEndedError', jobId: 'j-1', status: 'running' });
    const incomplete = new PurgeIncompleteError('j-2', ['a', 'b', 'c', 'd', 'e', 'f']);
    expect(incomplete.message).toBe(
      'purge of job j-2 left 6 thing(s) behind (a; b; c; d; e; …); run it again',
    );
    expect([isPurgeError(notEnded), isJobNotEndedError(notEnded), isPurgeIncompleteError(notEnded)]).toEqual([
      true,
      true,
      false,
    ]);
    expect([
      isPurgeError(incomplete),
      isJobNotEndedError(incomplete),
      isPurgeIncompleteError(incomplete),
    ]).toEqual([true, false, true]);
    for (const other of [new JobNotFoundError('j-3'), new Error('x'), 'text', undefined]) {
      expect([isPurgeError(other), isJobNotEndedError(other), isPurgeIncompleteError(other)]).toEqual([
        false,
        false,
        false,
      ]);
    }
  });
});

describe('describePurge', () => {
  it('counts versions and delete markers apart, and names every version it kept', () => {
    const lines = describePurge({
      jobId: 'j-1',
      purgedAt: '2026-01-02T03:04:05.000Z',
      objects: [
        { bucket: 'in', key: 'incoming/a.txt', versionId: 'v1' },
        { bucket: 'in', key: 'incoming/a.txt', versionId: 'm1', deleteMarker: true },
        { bucket: 'out', key: 'work/j-1/document.json' },
      ],
      kept: [{ bucket: 'in', key: 'incoming/a.txt', versionId: 'v2' }],
      items: 7,
      previouslyPurgedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(lines).toEqual([
      'purged j-1: 2 object version(s) and 1 delete marker(s) deleted (document, work files, reports), 7 table item(s) deleted; the job record stays, marked purgedAt 2026-01-02T03:04:05.000Z',
      '(it had been purged before, at 2026-01-01T00:00:00.000Z)',
      'kept s3://in/incoming/a.txt version v2: another upload to the same key, with other bytes',
    ]);
  });
});
