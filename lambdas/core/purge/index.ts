export {
  isJobNotEndedError,
  isPurgeError,
  isPurgeIncompleteError,
  JobNotEndedError,
  PurgeError,
  PurgeIncompleteError,
} from './errors.js';
export { type ObjectVersion, type PurgeDeps, type PurgeRecord, type PurgeResult, purgeJob } from './purge.js';
