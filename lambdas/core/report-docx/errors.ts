import { guardOf } from '../error-guard.js';

/** Base class of the errors of writing report.docx. */
export class ReportDocxError extends Error {
  override readonly name: string = 'ReportDocxError';
  constructor(
    message: string,
    readonly jobId: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The uploaded DOCX could not be read as a Word document (no main part, XML that does not parse). */
export class DocxPackageError extends ReportDocxError {
  override readonly name = 'DocxPackageError';
  constructor(
    message: string,
    jobId: string,
    /** The package part at fault, e.g. `word/document.xml`. */
    readonly part: string,
    options?: ErrorOptions,
  ) {
    super(message, jobId, options);
  }
}

/** True for any error of writing report.docx. */
export const isReportDocxError = guardOf(ReportDocxError);

/** True when the uploaded DOCX itself could not be read. */
export const isDocxPackageError = guardOf(DocxPackageError);
