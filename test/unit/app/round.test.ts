/**
 * The round a new upload answers, as the reviewer app and the add-in offer it: the owner's earlier
 * jobs of the same contract first, read by their file names, and the request the choice makes.
 */
import { describe, expect, it } from 'vitest';
import { againstRequest, contractName, sameContract, versionChoices } from '../../../lambdas/app/round.js';
import type { JobSummary } from '../../../lambdas/core/live/index.js';

const job = (jobId: string, document: string, status: JobSummary['status'], createdAt: string) =>
  ({ jobId, document, status, createdAt }) as JobSummary;

describe('the version a round answers', () => {
  it('reads a contract’s name from a file name, its version marks set aside', () => {
    expect(contractName('incoming/s-1/Acme_MSA v2 (ours).docx')).toBe('acme msa');
    expect(contractName('Acme-MSA-redline-round3-theirs.DOCX')).toBe('acme msa');
    expect(sameContract('Acme MSA v2 (ours).docx', 'Acme_MSA_v3_theirs.docx')).toBe(true);
    expect(sameContract('Acme MSA.docx', 'Acme MSA - their redline.docx')).toBe(true);
    expect(sameContract('Acme MSA.docx', 'Globex NDA.docx')).toBe(false);
    expect(sameContract('v2.docx', 'v3.docx')).toBe(false);
  });

  it('offers the jobs intake read, those of the same contract first, newest first within each', () => {
    const jobs = [
      job('j-3', 'incoming/s-3/Globex NDA.docx', 'completed', '2026-03-03T10:00:00Z'),
      job('j-2', 'incoming/s-2/Acme MSA v2.docx', 'completed', '2026-03-02T10:00:00Z'),
      job('j-4', 'incoming/s-4/Acme MSA v1.docx', 'rejected', '2026-03-04T10:00:00Z'),
      job('j-1', 'incoming/s-1/Acme MSA v1.docx', 'incomplete', '2026-03-01T10:00:00Z'),
    ];
    expect(versionChoices(jobs, 'Acme MSA v3 theirs.docx').map((c) => [c.jobId, c.sameContract])).toEqual([
      ['j-2', true],
      ['j-1', true],
      ['j-3', false],
    ]);
    expect(versionChoices(jobs, undefined)[0]?.label).toBe('Globex NDA.docx · 2026-03-03 10:00 · completed');
  });

  it('names an earlier job or our version’s file, never both', () => {
    expect(againstRequest('j-0123456789abcdef0123', undefined)).toEqual({
      against: 'j-0123456789abcdef0123',
    });
    expect(againstRequest(undefined, { name: 'ours.docx' })).toEqual({ againstFilename: 'ours.docx' });
    expect(againstRequest(undefined, undefined)).toEqual({});
    expect(() => againstRequest('j-0123456789abcdef0123', { name: 'ours.docx' })).toThrow(/not both/);
  });
});
