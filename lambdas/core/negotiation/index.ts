/**
 * Negotiation: a version of the contract set beside another. A clean copy (the other side's
 * answer with its edits unmarked) compared clause by clause with the version it answers, each
 * difference recorded as a change of theirs in the shape of a tracked change; the clauses they
 * changed as they read before, for the analysts to judge beside the clauses as they read now; and
 * each change weighed and answered (accept, reject, or a fallback countered).
 */

export type {
  ChangeVerdict,
  CounterProposal,
  Negotiation,
  NegotiationChange,
  NegotiationComment,
  NegotiationDocx,
  RiskRise,
  RungShift,
} from '../records/negotiation.js';
export {
  alignClauses,
  type ClauseAlignment,
  MIN_IN_PLACE_SIMILARITY,
  MIN_SIMILARITY,
  type Passage,
  type PassagePair,
  passagesOf,
} from './align-clauses.js';
export {
  afterClauseId,
  beforeChunks,
  beforeClauseId,
  beforeClauses,
  type ChangeRecord,
  changesWords,
  contractClauses,
  isBeforeClause,
  pairedScreen,
  quotedClauses,
} from './before-clauses.js';
export {
  canonicalWord,
  labelCore,
  type Renumbering,
  renumberingOf,
  type Token,
  tokensOf,
} from './clause-tokens.js';
export { type CompareOptions, compareVersions, type VersionComparison } from './compare-versions.js';
export { counterProposal, type Focus, languageEdits } from './counter.js';
export { judgeNegotiation, type NegotiationInput } from './judge.js';
export { type ClauseSides, type ClauseVerdict, judgeClause, rungWords } from './judge-clause.js';
export { restateNumber } from './restate-number.js';
export { diffWords, type Hunk, MAX_EDITS } from './word-diff.js';
