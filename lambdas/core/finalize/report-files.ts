/** The reports a job gets, and the content type each is stored and served with. */

/** The reports of a job. */
export type ReportKind = 'json' | 'html' | 'docx';

/** The content type each report is stored and served with. */
export const REPORT_CONTENT_TYPES: Readonly<Record<ReportKind, string>> = {
  json: 'application/json',
  html: 'text/html; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};
