export { type Classification, callNamedIn, classifyDeadLetter, type DeadLetterFacts } from './classify.js';
export { type DeadLetter, REDRIVES_ATTRIBUTE } from './dead-letter-queue.js';
export { type DeadLetterRecord, DeadLetterRecords, dlqPk, type TriageDecision } from './records.js';
export {
  type DeadLetterRow,
  isMoveTaskUnsupported,
  listDeadLetters,
  type RedriveFilter,
  type RedriveResult,
  redriveDeadLetters,
} from './redrive.js';
export { type DeadLetterView, type DlqDeps, type TriageSummary, triageDeadLetters } from './triage.js';
