export {
  decide,
  lastActivity,
  type SweepAction,
  type SweepRules,
  sweepRules,
} from './rules.js';
export { type SweeperDeps, type SweepSummary, sweep, sweepJob } from './sweeper.js';
