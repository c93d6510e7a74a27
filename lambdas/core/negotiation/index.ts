/**
 * Negotiation: a version of the contract set beside another. A clean copy (the other side's
 * answer with its edits unmarked) compared clause by clause with the version it answers, each
 * difference recorded as a change of theirs in the shape of a tracked change.
 */
export {
  alignClauses,
  type ClauseAlignment,
  MIN_SIMILARITY,
  type Passage,
  type PassagePair,
  passagesOf,
} from './align-clauses.js';
export {
  canonicalWord,
  labelCore,
  type Renumbering,
  renumberingOf,
  type Token,
  tokensOf,
} from './clause-tokens.js';
export { type CompareOptions, compareVersions, type VersionComparison } from './compare-versions.js';
export { diffWords, type Hunk, MAX_EDITS } from './word-diff.js';
