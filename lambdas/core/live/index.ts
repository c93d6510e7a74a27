export { decodeFindingsCursor, encodeFindingsCursor } from './cursor.js';
export { CursorError, isCursorError, isLiveReadError, LiveReadError } from './errors.js';
export {
  APPROVALS_MAX,
  JOBS_PAGE_DEFAULT,
  JOBS_PAGE_MAX,
  type JobListView,
  type JobSummary,
  listAwaitingApproval,
  listJobs,
} from './job-list.js';
export {
  FINDINGS_PAGE_CLAUSES,
  type LiveFindingsDeps,
  type LiveFindingsView,
  readLiveFindings,
} from './live-findings.js';
