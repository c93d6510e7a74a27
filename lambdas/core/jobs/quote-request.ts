/**
 * POST /quote: what a document would cost with the given options, read and priced exactly as
 * intake will (the same parse, in the same bounded worker, and `quoteDocument`), with no job
 * recorded, nothing uploaded and nothing spent.
 */
import { z } from 'zod';
import {
  DEFAULT_DOCUMENT_LIMITS,
  type DocumentLimits,
  isDocumentRejectedError,
  isParseOvertimeError,
  parseDocumentBounded,
  readParties,
} from '../documents/index.js';
import { ceilingCovers, quoteDocument } from '../intake/quote.js';
import {
  type ContractType,
  contractNamesOf,
  type JobParties,
  type NotAskedAnalyst,
  reviewedFor,
} from '../playbooks/index.js';
import { DocumentUnreadableError, InvalidJobRequestError, QuoteBusyError } from './errors.js';
import { computeView } from './job-view.js';
import {
  parseRequest,
  pinPlaybook,
  readSubmission,
  type SubmitDefaults,
  type SubmittedOptions,
  submitOptionsShape,
  submittedOptions,
  usd,
} from './submission.js';

/**
 * Largest document a quote request carries, in bytes before base64: its body (4 MiB of base64
 * and the options) stays under Lambda's 6 MB synchronous invocation payload
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html) even where API
 * Gateway passes the body base64-encoded again.
 */
export const MAX_QUOTE_DOCUMENT_BYTES = 3 * 1024 * 1024;

/**
 * The quote's parse bounds: intake's, with a wall clock that leaves the request time to answer
 * within API Gateway's 29 s (https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html).
 */
export const QUOTE_DOCUMENT_LIMITS: DocumentLimits = { ...DEFAULT_DOCUMENT_LIMITS, parseWallMs: 20_000 };

/** The body of POST /quote: a submission's options and the document itself, base64. */
export const quoteRequestSchema = z
  .object({
    ...submitOptionsShape,
    /** The document's bytes, base64 (standard alphabet, padded). */
    document: z.base64({ error: 'must be the document’s bytes in base64' }).min(1),
  })
  .strict();

/** A validated POST /quote body. */
export type QuoteRequest = z.output<typeof quoteRequestSchema>;

/** What POST /quote answers. */
export interface QuoteView {
  readonly filename: string;
  readonly format: string;
  readonly bytes: number;
  readonly clauses: number;
  /** Model calls the job would make: clauses × analysts, less those screened. */
  readonly calls: number;
  /** Pairs of clause and analyst the relevance screen leaves out. */
  readonly callsScreened: number;
  /** The options a job would run with (the request's, or the defaults; with a playbook, the analysts it asks). */
  readonly options: SubmittedOptions;
  /**
   * The parties read from the preamble, as intake will record them; with a playbook, whose side
   * the review would take (`us`), and `problem` when it cannot tell and asks for a `party`.
   */
  readonly parties: JobParties;
  /** With a playbook: the contract type its topics were taken for, and where it came from. */
  readonly contractType?: ContractType;
  /** With a playbook: the analysts it leaves out, and why (`--all-analysts` keeps them). */
  readonly notAsked?: readonly NotAskedAnalyst[];
  readonly quote: {
    readonly expectedMicros: number;
    readonly worstCaseMicros: number;
    readonly expectedUsd: number;
    readonly worstCaseUsd: number;
    /** The calls the playbook saves (clauses × analysts left out) and what they would have cost. */
    readonly notAsked?: { readonly calls: number; readonly expectedMicros: number };
    /** The pairs the relevance screen leaves out and what those calls would have cost. */
    readonly screened?: { readonly calls: number; readonly expectedMicros: number };
    /** Compute beside the model calls on each lane, which cost the same on both. */
    readonly compute?: { readonly realtime: number; readonly batch: number };
    readonly computeUsd?: { readonly realtime: number; readonly batch: number };
  };
  /**
   * Whether intake would start a job with these options: false when the ceiling is below the
   * expected cost and `allowPartial` is not set (intake refuses it as `budget-below-quote`).
   */
  readonly wouldStart: boolean;
}

/** What a quote needs: the defaults and models intake applies, and its document limits. */
export interface QuoteDeps extends SubmitDefaults {
  /** Largest document intake reads, in bytes; a quote reads at most MAX_QUOTE_DOCUMENT_BYTES. @default that */
  readonly maxDocumentBytes?: number;
  /** Clauses per chunk, as intake splits them. @default the chunker's */
  readonly chunkClauses?: number;
  /** Bounds of the quote's parse. @default QUOTE_DOCUMENT_LIMITS */
  readonly quoteLimits?: DocumentLimits;
}

/**
 * Reads the document of a POST /quote body and prices it for the request's options.
 * @throws InvalidJobRequestError for a malformed body or an option intake would refuse
 * @throws DocumentUnreadableError when intake would refuse the document itself
 * @throws QuoteBusyError when the service was too busy to read it in time
 */
export async function quoteRequest(body: unknown, deps: QuoteDeps): Promise<QuoteView> {
  const { document, filename, ...request } = parseRequest(quoteRequestSchema, body, 'quote request');
  const { options, playbook, content } = await pinPlaybook(
    readSubmission(request, deps, 'quote request'),
    deps.playbooks,
    'quote request',
  );
  const bytes = Buffer.from(document, 'base64');
  if (bytes.length > MAX_QUOTE_DOCUMENT_BYTES) {
    throw new DocumentUnreadableError(
      `${filename} has ${bytes.length} bytes; a quote request carries at most ${MAX_QUOTE_DOCUMENT_BYTES} ` +
        '(submit it with POST /jobs instead: intake quotes it before any call, and refuses a ceiling below the quote)',
      filename,
      'too-large',
    );
  }
  let parsed: Awaited<ReturnType<typeof parseDocumentBounded>>;
  try {
    parsed = await parseDocumentBounded(new Uint8Array(bytes), {
      key: filename,
      maxBytes: Math.min(deps.maxDocumentBytes ?? MAX_QUOTE_DOCUMENT_BYTES, MAX_QUOTE_DOCUMENT_BYTES),
      ...(deps.chunkClauses ? { chunk: { maxClauses: deps.chunkClauses } } : {}),
      limits: deps.quoteLimits ?? QUOTE_DOCUMENT_LIMITS,
    });
  } catch (error) {
    if (isParseOvertimeError(error)) throw new QuoteBusyError(filename, { cause: error });
    if (!isDocumentRejectedError(error)) throw error;
    throw new DocumentUnreadableError(
      `${filename} cannot be quoted (${error.reason}): ${error.message}`,
      filename,
      error.reason,
      { cause: error },
    );
  }
  const parties = reviewedFor(readParties(parsed.text), options.party, content?.party, parsed.text);
  if ('refused' in parties) {
    throw new InvalidJobRequestError(`invalid quote request: ${parties.refused}`, [parties.refused]);
  }
  const { quote, panel } = quoteDocument(
    parsed,
    options,
    content ? { playbook: content, fileName: filename, names: contractNamesOf(parties) } : undefined,
  );
  const analysts = panel?.analysts ?? options.analysts;
  const callsScreened = quote.screened?.calls ?? 0;
  return {
    filename,
    format: parsed.format,
    bytes: parsed.bytes,
    clauses: parsed.clauses.length,
    calls: parsed.clauses.length * analysts.length - callsScreened,
    callsScreened,
    options: submittedOptions({ ...options, analysts }, playbook),
    parties,
    ...(panel?.contractType ? { contractType: panel.contractType } : {}),
    ...(panel && panel.notAsked.length > 0 ? { notAsked: panel.notAsked } : {}),
    quote: {
      ...quote,
      expectedUsd: usd(quote.expectedMicros),
      worstCaseUsd: usd(quote.worstCaseMicros),
      ...(quote.compute ? { computeUsd: computeView(quote.compute) } : {}),
    },
    wouldStart: ceilingCovers(quote, options),
  };
}
