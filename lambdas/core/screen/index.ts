export { isLearnedModelError, LearnedModelError } from './errors.js';
export { featureStrings, words } from './features.js';
export {
  evidence,
  featuresOf,
  type LearnedModel,
  loadLearnedModel,
  parseLearnedModel,
  probability,
  riskIndex,
  shippedModel,
} from './learned-model.js';
export {
  type DocumentScreen,
  isScreened,
  RelevanceScreen,
  type ScreenedAnalyst,
  type ScreenedPanelMember,
  screenedTexts,
  shippedScreen,
} from './screen.js';
export { isWordChar, type Segment, segmentClause } from './sentences.js';
export {
  type DenseLabel,
  packWeights,
  type StoredLabel,
  type StoredModel,
  type StoredScreen,
  unpackWeights,
} from './weights-format.js';
