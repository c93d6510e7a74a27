export {
  decide,
  lastActivity,
  type SweepAction,
  type SweepRules,
  sweepRules,
  type UnfinishedChunk,
  unfinishedChunks,
} from './rules.js';
export { type SweeperDeps, type SweepSummary, sweep, sweepJob } from './sweeper.js';
