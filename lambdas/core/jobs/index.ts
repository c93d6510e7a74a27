export {
  DocumentUnreadableError,
  InvalidJobRequestError,
  isDocumentUnreadableError,
  isInvalidJobRequestError,
  isJobConflictError,
  isJobNotFoundError,
  isJobRequestError,
  isQuoteBusyError,
  JobConflictError,
  JobNotFoundError,
  JobRequestError,
  QuoteBusyError,
} from './errors.js';
export {
  type Actor,
  type ApproverView,
  JOB_ID,
  type JobAccess,
  JobDesk,
  type JobDeskDeps,
  SUBMISSION_ID,
  type Submission,
  type UploadForm,
} from './job-desk.js';
export { type JobListQuery, type Lister, listJobsFor } from './job-list-request.js';
export { type JobView, jobView, queuedView, type ReportLinks } from './job-view.js';
export {
  MAX_QUOTE_DOCUMENT_BYTES,
  QUOTE_DOCUMENT_LIMITS,
  type QuoteDeps,
  type QuoteRequest,
  type QuoteView,
  quoteRequest,
  quoteRequestSchema,
} from './quote-request.js';
export {
  parseRequest,
  readSubmission,
  type SubmitRequest,
  type SubmittedOptions,
  submissionMetadata,
  submitRequestSchema,
} from './submission.js';
