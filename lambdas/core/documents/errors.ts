/**
 * Why an uploaded document cannot be reviewed, each with the one thing it tells the uploader to
 * fix. The one list: the type, the check of an error's shape and every reader come from it, so a
 * new reason is one entry here and the place that throws it.
 */
export const REJECTION_REASONS = {
  empty: 'the file has no content, or no readable text once extracted (e.g. a scan without a text layer)',
  binary: 'the bytes are not text although the name says they are',
  corrupt: 'the file claims a format (PDF, DOCX) but cannot be opened as one',
  encrypted: 'the file is password-protected',
  'too-large': 'the file is over the configured size limit',
  'too-large-inflated': "a DOCX's entries or a PDF's streams unpack to more than the limit",
  'too-many-pages': 'a PDF has more pages than the limit',
  'too-complex':
    'reading it took more processing time or memory than allowed, or it holds more text or clauses than one job reviews',
  'unsupported-type': 'the format is not one the pipeline reads',
  'no-clauses': 'text was found, but nothing in it forms a clause',
} as const satisfies Record<string, string>;

/** Why an uploaded document cannot be reviewed (see {@link REJECTION_REASONS}). */
export type RejectionReason = keyof typeof REJECTION_REASONS;

/** Facts behind a rejection (sizes, extension, page count), for logs and the job record. */
export type RejectionDetail = Readonly<Record<string, string | number | boolean>>;

/**
 * The document was refused at intake. The message is written for the person who uploaded the file:
 * it names the problem and what to do about it, without engineering vocabulary.
 */
export class DocumentRejectedError extends Error {
  override readonly name = 'DocumentRejectedError';
  /** Machine-readable reason, stable across releases. */
  readonly reason: RejectionReason;
  /** Facts behind the rejection, when there are any worth recording. */
  readonly detail?: RejectionDetail;

  constructor(
    reason: RejectionReason,
    message: string,
    options: { cause?: unknown; detail?: RejectionDetail } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.reason = reason;
    if (options.detail !== undefined) this.detail = options.detail;
  }
}

/**
 * True when `e` is a {@link DocumentRejectedError}. Checks the shape as well as the prototype, because
 * an error crossing a bundling or realm boundary (two copies of this module) fails `instanceof`.
 */
export function isDocumentRejectedError(e: unknown): e is DocumentRejectedError {
  if (e instanceof DocumentRejectedError) return true;
  return (
    e instanceof Error &&
    e.name === 'DocumentRejectedError' &&
    REASONS.has(String((e as Error & { reason?: unknown }).reason))
  );
}

const REASONS: ReadonlySet<string> = new Set(Object.keys(REJECTION_REASONS));

/**
 * A parse ran out of wall-clock time before it used its CPU time: the machine was busy (other
 * parses, other work), so this says nothing about the document. Not a rejection: the caller
 * tries again later, or says the service was busy.
 */
export class ParseOvertimeError extends Error {
  override readonly name = 'ParseOvertimeError';

  constructor(
    /** CPU time the parser thread had used when it was stopped, in milliseconds. */
    readonly cpuMs: number,
    /** The wall-clock limit it reached, in milliseconds. */
    readonly wallMs: number,
    /** The CPU time it was allowed, in milliseconds. */
    readonly cpuLimitMs: number,
  ) {
    super(
      `reading the document was stopped after ${wallMs} ms of wall-clock time, having used ${cpuMs} ms ` +
        `of the ${cpuLimitMs} ms of CPU time it may: the machine was busy`,
    );
  }
}

/** True when `e` is a {@link ParseOvertimeError} (by shape as well, across bundles). */
export function isParseOvertimeError(e: unknown): e is ParseOvertimeError {
  return e instanceof ParseOvertimeError || (e instanceof Error && e.name === 'ParseOvertimeError');
}
