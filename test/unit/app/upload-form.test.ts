import { describe, expect, it } from 'vitest';
import {
  isUploadRefusedError,
  refusalOf,
  sendUpload,
  UploadRefusedError,
} from '../../../lambdas/app/upload-form.js';

const upload = {
  method: 'POST' as const,
  url: 'https://intake.s3.eu-west-1.amazonaws.com/',
  fields: {
    key: 'incoming/s-1/msa.txt',
    'x-amz-meta-lane': 'batch',
    Policy: 'eyJ9',
    'X-Amz-Signature': 'ab',
  },
  maxBytes: 10,
  expiresAt: '2026-01-01T00:00:00.000Z',
};

/** A fetch that records what it was asked and answers `response`. */
function fetcherAnswering(response: Response) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetcher = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    return response;
  }) as typeof fetch;
  return { fetcher, calls };
}

describe('sendUpload', () => {
  it("posts the policy's fields as they are, then the document as the last field, and returns the version", async () => {
    const { fetcher, calls } = fetcherAnswering(
      new Response(null, { status: 204, headers: { 'x-amz-version-id': 'v7' } }),
    );
    const sent = await sendUpload(
      upload,
      'incoming/s-1/msa.txt',
      new TextEncoder().encode('1. Term.'),
      fetcher,
    );
    expect(sent).toEqual({ versionId: 'v7' });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.url).toBe(upload.url);
    expect(calls[0]?.init.method).toBe('POST');
    const form = calls[0]?.init.body as FormData;
    expect([...form.keys()]).toEqual([...Object.keys(upload.fields), 'file']);
    expect(form.get('x-amz-meta-lane')).toBe('batch');
    const file = form.get('file') as File;
    expect(file.name).toBe('msa.txt');
    expect(await file.text()).toBe('1. Term.');
  });

  it('does not send a document over the limit, and says so in the uploader’s terms', async () => {
    const { fetcher, calls } = fetcherAnswering(new Response(null, { status: 204 }));
    const error = await sendUpload(upload, 'k', new Uint8Array(11), fetcher).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(calls).toEqual([]);
    expect(isUploadRefusedError(error)).toBe(true);
    expect(error).toMatchObject({ status: 0, code: 'too-large' });
    expect((error as Error).message).toMatch(
      /^The file is 11 bytes, which is over the 10-byte limit of an upload\./,
    );
  });

  it("throws S3's refusal with its code and message", async () => {
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>' +
      '<Message>Invalid according to Policy: Extra input fields: x-amz-meta-gate</Message></Error>';
    const { fetcher } = fetcherAnswering(new Response(body, { status: 403 }));
    const error = await sendUpload(upload, 'k', new Uint8Array(1), fetcher).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UploadRefusedError);
    expect(error).toMatchObject({ status: 403, code: 'AccessDenied', body });
    expect((error as Error).message).toBe(
      'the upload was refused (HTTP 403, AccessDenied): Invalid according to Policy: Extra input fields: x-amz-meta-gate',
    );
  });
});

describe('refusalOf', () => {
  it('reads EntityTooLarge as the size limit, and an answer that is not S3 XML as it came', () => {
    const tooLarge =
      '<Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds the maximum allowed size</Message>' +
      '<ProposedSize>12582912</ProposedSize><MaxSizeAllowed>10485760</MaxSizeAllowed></Error>';
    expect(refusalOf(400, tooLarge).message).toBe(
      'the upload was refused (HTTP 400, EntityTooLarge): The file is 12,582,912 bytes, which is over the ' +
        '10,485,760-byte limit of an upload. Upload a smaller file, for example the contract without its attachments.',
    );
    const plain = refusalOf(502, 'Bad Gateway');
    expect(plain.code).toBe('');
    expect(plain.message).toBe('the upload was refused (HTTP 502): Bad Gateway');
  });
});
