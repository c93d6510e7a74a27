/** Base class of the errors of writing report.docx. */
export class ReportDocxError extends Error {
  constructor(
    message: string,
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ReportDocxError';
  }
}

/** The uploaded DOCX could not be read as a Word document (no main part, XML that does not parse). */
export class DocxPackageError extends ReportDocxError {
  constructor(
    message: string,
    jobId: string,
    /** The package part at fault, e.g. `word/document.xml`. */
    readonly part: string,
    options?: { cause?: unknown },
  ) {
    super(message, jobId, options);
    this.name = 'DocxPackageError';
  }
}

/** True for any error of writing report.docx. */
export function isReportDocxError(error: unknown): error is ReportDocxError {
  return error instanceof ReportDocxError;
}

/** True when the uploaded DOCX itself could not be read. */
export function isDocxPackageError(error: unknown): error is DocxPackageError {
  return error instanceof DocxPackageError;
}
