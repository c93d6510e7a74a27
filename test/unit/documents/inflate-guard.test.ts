import { deflateRawSync, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  checkPdfInflation,
  checkZipInflation,
  type DocumentRejectedError,
} from '../../../lambdas/core/documents/index.js';
import { buildDocx, buildPdf, buildZip, sampleLines } from '../../fixtures/documents/builders.js';

const thrown = (f: () => void): DocumentRejectedError | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return e as DocumentRejectedError;
  }
};

/** A PDF stream object of the given (already deflated) data. */
const pdfWithStream = (data: Buffer, filter = '/Filter /FlateDecode') =>
  Uint8Array.from(
    Buffer.concat([
      Buffer.from(`%PDF-1.4\n5 0 obj\n<< /Length ${data.length} ${filter} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1'),
    ]),
  );

describe('checkZipInflation', () => {
  it('passes a real DOCX, and a file that is not a zip at all', () => {
    expect(thrown(() => checkZipInflation(buildDocx(sampleLines()), 1_000_000))).toBeUndefined();
    expect(thrown(() => checkZipInflation(new TextEncoder().encode('not a zip'), 10))).toBeUndefined();
  });

  it('refuses entries that inflate to more than the budget in all, naming the limit', () => {
    const zip = buildZip({ 'a.xml': 'a'.repeat(60_000), 'b.xml': 'b'.repeat(60_000) });
    expect(thrown(() => checkZipInflation(zip, 130_000))).toBeUndefined();
    const error = thrown(() => checkZipInflation(zip, 100_000));
    expect(error?.reason).toBe('too-large-inflated');
    expect(error?.message).toMatch(/unpacks to more than 97\.7 KB/);
    expect(error?.detail).toEqual({ format: 'docx', maxInflatedBytes: 100_000 });
  });

  it('inflates rather than trusting the sizes the zip declares', () => {
    const zip = Buffer.from(buildZip({ 'a.xml': 'a'.repeat(200_000) }));
    // Rewrite the declared uncompressed size (local header and central directory) to 10 bytes.
    zip.writeUInt32LE(10, 22);
    zip.writeUInt32LE(10, zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24);
    expect(thrown(() => checkZipInflation(Uint8Array.from(zip), 100_000))?.reason).toBe('too-large-inflated');
  });
});

describe('checkPdfInflation', () => {
  it('passes a real PDF', () => {
    expect(thrown(() => checkPdfInflation(buildPdf([sampleLines()]), 1_000))).toBeUndefined();
  });

  it('refuses FlateDecode streams that inflate to more than the budget, stopping at it', () => {
    const big = deflateSync(Buffer.alloc(5_000_000, 'BT (x) Tj ET\n'));
    const error = thrown(() => checkPdfInflation(pdfWithStream(big), 1_000_000));
    expect(error?.reason).toBe('too-large-inflated');
    expect(error?.detail).toEqual({ format: 'pdf', maxInflatedBytes: 1_000_000 });
    expect(thrown(() => checkPdfInflation(pdfWithStream(big), 6_000_000))).toBeUndefined();
  });

  it('reads streams with a wrong checksum or no zlib header, as PDF readers do', () => {
    const body = Buffer.alloc(2_000_000, 'x');
    const zlibbed = deflateSync(body);
    zlibbed.writeUInt32BE(0, zlibbed.length - 4);
    expect(thrown(() => checkPdfInflation(pdfWithStream(zlibbed), 1_000_000))?.reason).toBe(
      'too-large-inflated',
    );
    const raw = deflateRawSync(body);
    expect(thrown(() => checkPdfInflation(pdfWithStream(raw), 1_000_000))?.reason).toBe('too-large-inflated');
  });

  it('leaves unfiltered streams alone: they are no larger than the file', () => {
    const plain = Buffer.alloc(50_000, 'x');
    expect(thrown(() => checkPdfInflation(pdfWithStream(plain, ''), 40_000))).toBeUndefined();
  });
});
