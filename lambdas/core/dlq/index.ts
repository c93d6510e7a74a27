export { type Classification, callNamedIn, classifyDeadLetter, type DeadLetterFacts } from './classify.js';
export { type DeadLetter, REDRIVES_ATTRIBUTE } from './dead-letter-queue.js';
export { type DeadLetterRecord, DeadLetterRecords, dlqPk, type TriageDecision } from './records.js';
export {
  type DeadLetterRow,
  type DeadLetterView,
  type DlqDeps,
  isMoveTaskUnsupported,
  listDeadLetters,
  type RedriveFilter,
  type RedriveResult,
  redriveDeadLetters,
  type TriageSummary,
  triageDeadLetters,
} from './triage.js';
