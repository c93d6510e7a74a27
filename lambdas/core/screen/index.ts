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
  type DenseLabel,
  packWeights,
  type StoredLabel,
  type StoredModel,
  unpackWeights,
} from './weights-format.js';
