/**
 * Document intake: from uploaded bytes to normalised text, clauses and chunks, or a rejection
 * the uploader can act on.
 */
export { type BoundedParseOptions, parseDocumentBounded, warmParserThread } from './bounded-parse.js';
export type { ChunkOptions } from './chunker.js';
export { chunkClauses, DEFAULT_MAX_CHARS, DEFAULT_MAX_CLAUSES } from './chunker.js';
export type { ContractKindReading, KindSource } from './contract-kind.js';
export { BODY_WINDOW, readContractKind, TITLE_WINDOW } from './contract-kind.js';
export type { ContractKind, KindSpec } from './contract-kinds.js';
export { CONTRACT_KIND_IDS, CONTRACT_KINDS, kindLabel, kindsNamedIn } from './contract-kinds.js';
export type { ContractParty, PartiesReading } from './contract-parties.js';
export { PREAMBLE_WINDOW, readParties } from './contract-parties.js';
export type { DefinedTerm, DefinedTerms, DefinitionForm } from './defined-terms.js';
export { MAX_DEFINED_TERMS, MAX_DEFINED_TERMS_CHARS, readDefinedTerms, termKey } from './defined-terms.js';
export type { FormatHints } from './detect-format.js';
export { detectFormat } from './detect-format.js';
export { readDocxRevisions } from './docx-revisions.js';
export type { RejectionDetail, RejectionReason } from './errors.js';
export {
  DocumentRejectedError,
  isDocumentRejectedError,
  isParseOvertimeError,
  ParseOvertimeError,
} from './errors.js';
export { extractText } from './extract-text.js';
export type { DocumentFormat, FormatExtension, FormatSpec } from './formats.js';
export { FORMAT_IDS, FORMATS, SUPPORTED_EXTENSIONS } from './formats.js';
export { checkPdfInflation, checkZipInflation } from './inflate-guard.js';
export type { DocumentLimits } from './limits.js';
export { DEFAULT_DOCUMENT_LIMITS } from './limits.js';
export { normaliseText } from './normalise.js';
export type { ParsedDocument, ParseInput } from './parse.js';
export { parseDocument } from './parse.js';
export type { PartySide } from './party-sides.js';
export { PARTY_SIDES } from './party-sides.js';
export { clauseIdsAt } from './revision-assembly.js';
export { spanBefore, textBefore } from './revision-restore.js';
export type {
  DocumentRevisions,
  RevisionChange,
  RevisionComment,
  RevisionKind,
  RevisionSource,
} from './revision-types.js';
export {
  boundedText,
  MAX_CHANGE_TEXT,
  MAX_CHANGES,
  MAX_COMMENTS,
  MAX_RESTORE_EDITS,
} from './revision-types.js';
export type { SplitOptions } from './split-clauses.js';
export {
  DEFAULT_MAX_CLAUSE_CHARS,
  DEFAULT_MIN_CLAUSE_CHARS,
  frontMatterSpan,
  splitClauses,
} from './split-clauses.js';
export type { ThreadCpuSource } from './thread-cpu.js';
export { tooLargeError, tooLargeMessage } from './too-large.js';
