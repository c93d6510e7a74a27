export { applyEdits, editsClash, type RedlineEdit } from '../../text/redline-edits.js';
export { authorOf, COMMENT_AUTHOR, changeAuthorOf, claimsOurName, IN_THE_ORIGINAL } from './authors.js';
export { COMMENT_RISK, commented, commentParagraphs, type RedlineMention } from './comment-text.js';
export { DocxPackageError, isDocxPackageError, isReportDocxError, ReportDocxError } from './errors.js';
export type { DocxClauseInsert } from './inserted-clauses.js';
export type { DocxRedline } from './redlines.js';
export { paragraphTexts, type ReportDocx, type ReportDocxInput, renderReportDocx } from './report-docx.js';
export { isXmlChar, REPLACEMENT_CHARACTER, xmlSafe } from './xml-text.js';
