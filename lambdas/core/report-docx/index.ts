export { COMMENT_RISK, commented, commentParagraphs } from './comment-text.js';
export { DocxPackageError, isDocxPackageError, isReportDocxError, ReportDocxError } from './errors.js';
export {
  COMMENT_AUTHOR,
  paragraphTexts,
  type ReportDocx,
  type ReportDocxInput,
  renderReportDocx,
} from './report-docx.js';
