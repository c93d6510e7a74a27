export { authorOf, COMMENT_AUTHOR, claimsOurName, IN_THE_ORIGINAL } from './authors.js';
export { COMMENT_RISK, commented, commentParagraphs } from './comment-text.js';
export { DocxPackageError, isDocxPackageError, isReportDocxError, ReportDocxError } from './errors.js';
export { paragraphTexts, type ReportDocx, type ReportDocxInput, renderReportDocx } from './report-docx.js';
export { isXmlChar, REPLACEMENT_CHARACTER, xmlSafe } from './xml-text.js';
