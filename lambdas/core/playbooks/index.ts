export { approverGroups, shippedApproverGroups } from './approvers.js';
export { canonicalJson, sha256Hex } from './canonical.js';
export {
  type ContractSide,
  type ContractTerms,
  type Rendered,
  renderInContractTerms,
  termsOfText,
} from './contract-terms.js';
export {
  type ContractType,
  type ContractWords,
  contractTypeFor,
  contractTypeIssue,
} from './contract-type.js';
export {
  isPlaybookCorruptError,
  isPlaybookError,
  isPlaybookInvalidError,
  isPlaybookNotFoundError,
  isPlaybookRefError,
  issueLine,
  PlaybookCorruptError,
  PlaybookError,
  PlaybookInvalidError,
  type PlaybookIssue,
  PlaybookNotFoundError,
  PlaybookRefError,
} from './errors.js';
export {
  applicableTopics,
  type NotAskedAnalyst,
  type PlaybookPanel,
  playbookPanel,
  positionBriefs,
} from './panel.js';
export {
  MAX_PLAYBOOK_BYTES,
  MAX_PLAYBOOK_SOURCE_BYTES,
  type ParsedPlaybook,
  parsePlaybook,
  withHash,
} from './parse.js';
export {
  type JobPlaybook,
  type PlaybookRef,
  type PlaybookRequest,
  parsePlaybookRequest,
  playbookRequestText,
} from './ref.js';
export {
  ADMINISTRATORS_GROUP,
  type Escalation,
  type EscalationEntry,
  type EscalationReview,
  type FallbackIndex,
  type Measured,
  type Placement,
  type PlaybookReview,
  type PositionFinding,
  type PositionQuote,
  type PositionSummary,
  type ProposedRedline,
  positionFindingId,
  type RedlineDecision,
  type RedlineDecisionRecord,
  type RedlineShape,
  type RedlineSource,
  type RedlineStatus,
  type RedlinesWritten,
  type RequiredClauseFinding,
  type Rung,
  type RungKind,
  redlineId,
  requiredClauseFindingId,
  type WithheldReason,
  type WithheldRedline,
} from './review-types.js';
export {
  contractNamesOf,
  type JobParties,
  type JobParty,
  partiesText,
  reviewedFor,
  sideWords,
} from './reviewed-for.js';
export {
  DIRECTIONS,
  type Direction,
  type Fallback,
  IMPORTANCES,
  type Importance,
  MAX_FALLBACKS,
  MAX_POSITIONS,
  MAX_REQUIRED_CLAUSES,
  type Measure,
  PARTIES,
  type Party,
  type Playbook,
  type Position,
  playbookJsonSchema,
  playbookSchema,
  type RequiredClause,
  topicsFor,
  UNIT_MAXIMA,
  type Unit,
} from './schema.js';
export { shippedPlaybooks } from './shipped.js';
export {
  jobPlaybookOf,
  type PlaybookListing,
  PlaybookStore,
  type PlaybookVersion,
  type PutOutcome,
  SHIPPED_BY,
  type StoredPlaybook,
} from './store.js';
