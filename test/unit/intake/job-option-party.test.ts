import { describe, expect, it } from 'vitest';
import {
  isJobOptionError,
  metadataText,
  metadataValue,
  readJobOptions,
} from '../../../lambdas/core/intake/job-options.js';
import { readSubmission, submissionMetadata } from '../../../lambdas/core/jobs/submission.js';

const defaults = { lane: 'realtime', ceilingMicros: 20_000_000 } as Parameters<typeof readJobOptions>[2];

describe('the party option', () => {
  it('carries a name that is not ASCII through S3 metadata as an RFC 2047 encoded word and back', () => {
    const name = 'Société Générale S.A.';
    const carried = metadataValue(name);
    expect(carried).toMatch(/^=\?UTF-8\?B\?[A-Za-z0-9+/=]+\?=$/);
    expect(metadataText(carried)).toBe(name);
    expect(metadataValue('Mrs. Fields Inc.')).toBe('Mrs. Fields Inc.');
    // S3 returns non-ASCII metadata Q-encoded as well.
    expect(metadataText('=?UTF-8?Q?Soci=C3=A9t=C3=A9_G=C3=A9n=C3=A9rale?=')).toBe('Société Générale');
  });

  it('reads the party from upload metadata, decoded, and refuses one with control characters', () => {
    expect(
      readJobOptions({ playbook: 'default', party: metadataValue('Société Générale') }, {}, defaults),
    ).toMatchObject({ party: 'Société Générale' });
    expect(readJobOptions({ playbook: 'default', party: '  Franchisee ' }, {}, defaults)).toMatchObject({
      party: 'Franchisee',
    });
    try {
      readJobOptions({ playbook: 'default', party: metadataValue('Acme\u0007Inc') }, {}, defaults);
      expect.unreachable();
    } catch (error) {
      expect(isJobOptionError(error)).toBe(true);
      expect((error as Error).message).toMatch(/the 'party' option must be a party's name/);
    }
  });

  it('puts a submission’s party on the upload as metadata S3 accepts', () => {
    const submission = readSubmission({ playbook: 'default', party: 'Société Générale' }, {
      defaultLane: 'realtime',
      defaultCeilingMicros: 20_000_000,
    } as Parameters<typeof readSubmission>[1]);
    expect(submission.metadata.party).toBe(metadataValue('Société Générale'));
  });
});

describe('the upload metadata of a request', () => {
  it('is written once for every way in, and intake reads back what was asked', () => {
    const metadata = submissionMetadata(
      {
        lane: 'batch',
        ceilingUsd: 2.5,
        playbook: 'default@2',
        contractType: 'supply',
        party: 'Société Générale',
        allAnalysts: true,
        fullPanel: true,
        allowPartial: true,
        against: 'file:our-version.docx',
      },
      { defaultLane: 'realtime', defaultCeilingMicros: 20_000_000 },
    );
    expect(metadata).toMatchObject({ 'ceiling-usd': '2.5', against: 'file:our-version.docx' });
    expect(Object.values(metadata).every((v) => /^[\x20-\x7e]*$/.test(v))).toBe(true);
    expect(readJobOptions(metadata, {}, defaults)).toMatchObject({
      lane: 'batch',
      ceilingMicros: 2_500_000,
      playbook: { name: 'default', version: 2 },
      contractType: 'supply',
      party: 'Société Générale',
      allAnalysts: true,
      fullPanel: true,
      allowPartial: true,
    });
    // What a request leaves out, the stack's defaults fill in.
    expect(submissionMetadata({}, { defaultLane: 'realtime', defaultCeilingMicros: 20_000_000 })).toEqual({
      lane: 'realtime',
      'ceiling-usd': '20',
    });
  });

  it("still reads the ceiling's earlier names: costCeilingUsd in a request, cost-ceiling-usd in metadata", () => {
    const metadata = submissionMetadata(
      { costCeilingUsd: 4 },
      { defaultLane: 'realtime', defaultCeilingMicros: 20_000_000 },
    );
    expect(metadata).toEqual({ lane: 'realtime', 'ceiling-usd': '4' });
    expect(readJobOptions({ 'cost-ceiling-usd': '3.5' }, {}, defaults).ceilingMicros).toBe(3_500_000);
    // The current name wins; a bad value under the old one is refused under that name.
    expect(
      readJobOptions({ 'ceiling-usd': '1', 'cost-ceiling-usd': '3.5' }, {}, defaults).ceilingMicros,
    ).toBe(1_000_000);
    expect(() => readJobOptions({ 'cost-ceiling-usd': 'lots' }, {}, defaults)).toThrow(
      "the 'cost-ceiling-usd' option must be a number of dollars",
    );
  });
});
