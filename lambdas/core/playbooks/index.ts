export { canonicalJson, sha256Hex } from './canonical.js';
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
