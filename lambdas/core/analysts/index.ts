/**
 * The analyst panel: eleven specialist reviewers, the twelve risk categories they score,
 * the Converse request and tool schema of a call, the validation of an answer, and the
 * consolidation of the panel's answers for a clause.
 */

export {
  type AnalystAnswer,
  type CategoryAssessment,
  type Finding,
  locateQuote,
  parseAnswer,
} from './answer.js';
export {
  CATEGORIES,
  CATEGORY_IDS,
  type CategoryId,
  CUAD_UNMAPPED,
  categoryById,
  isCategoryId,
  type RiskCategory,
  type RiskCategoryDefinition,
} from './categories.js';
export {
  type CategoryVerdict,
  type ClauseAssessment,
  type ClauseRisk,
  type ConsolidatedFinding,
  clauseFindings,
  consolidateClause,
  type PositionVerdict,
  riskFromScores,
} from './consolidate.js';
export {
  AnalystError,
  AnswerValidationError,
  isAnalystError,
  isAnswerValidationError,
  isUnknownAnalystError,
  UnknownAnalystError,
} from './errors.js';
export {
  checkPanelModels,
  type ModelChoice,
  modelsOf,
  type PanelModels,
  panelModelIds,
  withModels,
  withPrimary,
} from './panel-models.js';
export {
  type AnswerRedline,
  checkEdits,
  type LocatedQuote,
  type PositionAnswer,
  rungOf,
} from './position-answer.js';
export {
  type AnalystPlaybook,
  orderedPosition,
  type PositionBrief,
  type RungBrief,
  type RungValue,
  rungDepth,
  rungValues,
  targetValues,
  withPositions,
} from './positions.js';
export {
  buildConverseInput,
  type ConverseInputOptions,
  dataMarker,
  inputChars,
  positionsPrompt,
} from './prompt.js';
export { ANALYST_IDS, ANALYSTS, type AnalystDefinition, analystById, selectAnalysts } from './registry.js';
export {
  ANSWER_LIMITS,
  answerJsonSchema,
  answerSchema,
  type JsonSchema,
  type JsonValue,
  type RawAnswer,
  type RawCategoryAssessment,
  type RawEdit,
  type RawFinding,
  type RawPositionAnswer,
  SCORES,
  type Score,
  TOOL_NAME,
  toolConfigFor,
} from './tool-schema.js';
