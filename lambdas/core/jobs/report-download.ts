/**
 * How the reports are handed out: as attachments, each with its own type. report.html opened
 * inline would run on the results bucket's origin (its hash-only CSP keeps scripts out, but a
 * download is what a report is); a presigned GET carries `response-content-disposition` and
 * `response-content-type`, which S3 answers with in place of the stored headers
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html, "Overriding response
 * header values through the request").
 */

import type { ReportKind } from '../finalize/report-files.js';

/**
 * The file a report downloads as: the contract's name with `.review.<kind>` in place of its
 * extension (`Supply Agreement.pdf` → `Supply Agreement.review.html`), else the job id.
 */
export function reportFilename(documentKey: string, jobId: string, kind: ReportKind): string {
  const base = documentKey.split('/').at(-1) ?? '';
  const stem = base.replace(/\.[^.]*$/, '').trim();
  return `${stem || jobId}.review.${kind}`;
}

/**
 * `Content-Disposition: attachment` naming `filename`: a plain-ASCII `filename` for every
 * browser, and the exact name as UTF-8 in `filename*` (RFC 6266 section 4.3, RFC 8187).
 *
 * @example
 * attachmentDisposition('Vertrag “Müller”.review.html');
 * // `attachment; filename="Vertrag _M_ller_.review.html"; filename*=UTF-8''Vertrag%20%E2%80%9CM%C3%BCller%E2%80%9D.review.html`
 */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  // RFC 8187's attr-char excludes ' ( ) *, which encodeURIComponent leaves as they are.
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
