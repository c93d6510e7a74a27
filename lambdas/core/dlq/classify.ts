import type { QueueRole } from '../lanes-and-limits.js';
import type { Checkpoint, ErrorClass } from '../state/claims.js';
import type { Job } from '../state/job.js';

/** What triage knows about one dead letter when it classifies it. */
export interface DeadLetterFacts {
  readonly role: QueueRole;
  /** The body parsed as the queue's message schema; false when it is not one. */
  readonly wellFormed: boolean;
  readonly job?: Job;
  /** The chunk's live (first not-done) stage, for chunk messages. */
  readonly checkpoint?: Checkpoint;
  /** Last error recorded anywhere for it (checkpoint, or a note on the message). */
  readonly lastError?: string;
}

/** Triage's verdict on the class of a dead letter. */
export interface Classification {
  readonly errorClass: ErrorClass;
  /** transient and infrastructure failures may succeed on another try; the rest never will. */
  readonly retryable: boolean;
  /** One line for a person: why it is in this class. */
  readonly why: string;
}

// Names of the failure taxonomy (docs/architecture.md), matched in recorded error text.
const LOGIC =
  /ValidationException|AccessDenied|ResourceNotFound|UnrecognizedClient|budget|cost ceiling|unreadable|not found|unpriced|unsupported/i;
const VALIDATION = /schema|malformed|invalid (model )?answer|quote not found|repair/i;
const TRANSIENT =
  /Throttling|ServiceUnavailable|InternalServer|ModelTimeout|ModelNotReady|ModelError|ECONNRESET|ETIMEDOUT|EPIPE|socket|timed? ?out|tier-1 retries/i;

const retryable = (c: ErrorClass) => c === 'transient' || c === 'infrastructure';

/**
 * Classifies a dead letter into the failure taxonomy (docs/architecture.md):
 *
 * 1. a body that is not a message of its queue → `validation` (no delivery can ever parse it);
 * 2. a chunk or finalize message whose job does not exist → `logic`;
 * 3. the class the worker recorded on the checkpoint (`errorClass`), when there is one;
 * 4. else the recorded error text: logic names (ValidationException, AccessDenied,
 *    ResourceNotFound, budget…) → `logic`; answer-schema failures → `validation`; throttling,
 *    5xx, timeouts and socket errors → `transient`;
 * 5. else `infrastructure`: the message was received and never finished nor released with an
 *    error, which is what a killed worker, an out-of-memory exit, a timeout or a lost lease
 *    leave behind.
 *
 * @example
 * classifyDeadLetter({ role: 'realtime', wellFormed: true, job, checkpoint }).retryable;
 */
export function classifyDeadLetter(f: DeadLetterFacts): Classification {
  const make = (errorClass: ErrorClass, why: string): Classification => ({
    errorClass,
    retryable: retryable(errorClass),
    why,
  });
  if (!f.wellFormed) return make('validation', `the message body is not a valid ${f.role} message`);
  if (f.role !== 'intake' && !f.job) return make('logic', 'the job it names does not exist');
  const recorded = f.checkpoint?.errorClass;
  if (recorded) return make(recorded, `the worker recorded a ${recorded} failure`);
  const text = f.lastError ?? f.checkpoint?.lastError ?? '';
  if (text) {
    if (LOGIC.test(text)) return make('logic', 'the recorded error is permanent');
    if (VALIDATION.test(text)) return make('validation', 'the recorded error is a validation failure');
    if (TRANSIENT.test(text)) return make('transient', 'the recorded error is transient');
  }
  return make(
    'infrastructure',
    'received but never finished nor failed: worker killed, timed out or lost its lease',
  );
}

/** The clause and analyst a recorded error names (`… first: c0012/liability: …`), for failure-rate queries. */
export function callNamedIn(text: string | undefined): { clauseId?: string; analystId?: string } {
  const m = /\b(c\d{4,})\/([a-z][a-z0-9-]*)/.exec(text ?? '');
  return m ? { clauseId: m[1] as string, analystId: m[2] as string } : {};
}
