export { decodeFindingsCursor, encodeFindingsCursor } from './cursor.js';
export { CursorError, isCursorError, isLiveReadError, LiveReadError } from './errors.js';
export { JOBS_PAGE_DEFAULT, JOBS_PAGE_MAX, type JobListView, type JobSummary, listJobs } from './job-list.js';
export {
  FINDINGS_PAGE_CLAUSES,
  type LiveFindingsDeps,
  type LiveFindingsView,
  readLiveFindings,
} from './live-findings.js';
