/**
 * What a submission may ask for, read once for both POST /jobs (a presigned upload) and
 * POST /quote (a price without a job): the body's shape, then the same reading intake applies
 * to the upload's metadata (`readJobOptions`), so what is accepted here runs there.
 */
import { z } from 'zod';
import { ANALYST_IDS, type PanelModels } from '../analysts/index.js';
import type { Lane } from '../clause.js';
import {
  isJobOptionError,
  type JobOptions,
  MAX_PARTY_CHARS,
  MAX_REVIEW_HOURS,
  metadataValue,
  readJobOptions,
} from '../intake/job-options.js';
import { LANES } from '../lanes-and-limits.js';
import {
  contractTypeIssue,
  isPlaybookNotFoundError,
  type JobPlaybook,
  jobPlaybookOf,
  type Playbook,
  type PlaybookStore,
  playbookRequestText,
  type StoredPlaybook,
} from '../playbooks/index.js';
import { REVIEW_GATES, type ReviewGate } from '../state/job.js';
import { InvalidJobRequestError } from './errors.js';

/** The options of a submission: the body of POST /jobs, and of POST /quote beside the document. */
export const submitOptionsShape = {
  /**
   * Name of the document; its extension tells intake the format. No `$`, `{` or `}`: a key
   * ending in `${filename}` turns the presigned POST's key condition from an exact match into a
   * `starts-with` (the SDK's createPresignedPost, after S3's own rule that the form's key may
   * carry `${filename}`: https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html),
   * and one form would then upload any number of objects under the submission's prefix.
   */
  filename: z
    .string()
    .min(1)
    .max(200)
    .refine((s) => !/[/\\\p{Cc}]/u.test(s) && s !== '.' && s !== '..', {
      message: 'must be a plain file name without slashes or control characters',
    })
    .refine((s) => !/[${}]/.test(s), {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: S3's own variable, named in the message
      message: "must not hold '$', '{' or '}' (S3 reads '${filename}' in an upload's key as a wildcard)",
    }),
  lane: z.enum(LANES).optional(),
  /** Cost ceiling in dollars. */
  ceilingUsd: z.number().positive().max(100_000).optional(),
  /** The ceiling's name before `ceilingUsd`, still accepted for one release (docs/api.md). */
  costCeilingUsd: z.number().positive().max(100_000).optional(),
  /**
   * Analyst ids, each checked on its own: they travel to intake as one comma-separated
   * metadata value, so an id holding a comma must not turn into two.
   */
  analysts: z
    .array(
      z.string().refine((id) => ANALYST_IDS.includes(id), {
        error: (issue) =>
          `unknown analyst id ${JSON.stringify(issue.input)}; known: ${ANALYST_IDS.join(', ')}`,
      }),
    )
    .min(1)
    .max(50)
    .optional(),
  /** Run even when the ceiling is below the quote's expected cost, up to the ceiling. */
  allowPartial: z.boolean().optional(),
  /** Findings at or above this risk wait for a reviewer before the report is final. */
  gate: z.enum(REVIEW_GATES as [ReviewGate, ...ReviewGate[]]).optional(),
  /** How long the review may take before the report is written without it. */
  reviewHours: z.number().positive().max(MAX_REVIEW_HOURS).optional(),
  /** The playbook to review against: `NAME` (its latest version) or `NAME@VERSION`. */
  playbook: z.string().min(1).max(80).optional(),
  /** With a playbook: the contract type whose topics apply (one of the playbook's); absent: detected. */
  contractType: z.string().min(1).max(64).optional(),
  /** The party the review is for, as the contract names it ("Franchisee"); absent: the playbook's side, matched. */
  party: z.string().min(1).max(MAX_PARTY_CHARS).optional(),
  /** With a playbook: ask every analyst, even one the playbook gives nothing to judge. */
  allAnalysts: z.boolean().optional(),
  /** Ask every analyst about every clause; false (the default): the relevance screen leaves out the analysts a clause cannot concern. */
  fullPanel: z.boolean().optional(),
} as const;

/**
 * The body of POST /jobs: the options, and the version the document answers, when it is a round
 * of a negotiation: `against`, an earlier job of the caller's, or `againstFilename`, a file the
 * answer's second upload form (`againstUpload`) takes, to be uploaded before the document.
 */
export const submitRequestSchema = z
  .object({
    ...submitOptionsShape,
    against: z
      .string()
      .regex(/^j-[0-9a-f]{20}$/, { message: "must be an earlier job's id: j- and 20 hex digits" })
      .optional(),
    againstFilename: submitOptionsShape.filename.optional(),
  })
  .strict()
  .refine((r) => r.against === undefined || r.againstFilename === undefined, {
    message:
      'name the version the document answers once: against (a job) or againstFilename (a file), not both',
    path: ['against'],
  });

/** A validated POST /jobs body. */
export type SubmitRequest = z.output<typeof submitRequestSchema>;

/** The options a job will run with, as POST /jobs and POST /quote answer them. */
export interface SubmittedOptions {
  readonly lane: Lane;
  readonly ceilingUsd: number;
  readonly analysts: string[];
  readonly gate: ReviewGate;
  /** The playbook the job is reviewed against, as resolved when it was asked for. */
  readonly playbook?: JobPlaybook;
  /** The contract type asked for (absent: intake detects it). */
  readonly contractType?: string;
  /** The party the review is for, as asked (absent: intake infers it from the playbook's side). */
  readonly party?: string;
  /** Every analyst is asked, whatever the playbook gives it to judge. */
  readonly allAnalysts?: boolean;
  /** True when every analyst is asked about every clause (absent: the relevance screen runs first). */
  readonly fullPanel?: true;
}

/** Defaults a submission gets for what it leaves out: the same intake applies. */
export interface SubmitDefaults {
  readonly defaultLane: Lane;
  /** Micro-dollars. */
  readonly defaultCeilingMicros: number;
  /** The configured models (what a quote prices). @default the model table's primary and fallback */
  readonly models?: PanelModels;
  /** The shortest review a submission may ask for, in hours. @default DEFAULT_MIN_REVIEW_HOURS (1) */
  readonly minReviewHours?: number;
  /** The most a job's ceiling may be, micro-dollars (the stack's maximum). @default $100,000 */
  readonly maxCeilingMicros?: number;
  /**
   * Where a named playbook is looked up (the stack's). @default none: a playbook's name is
   * checked for its form only, and intake refuses one the stack does not hold
   */
  readonly playbooks?: Pick<PlaybookStore, 'get'>;
}

/** What a submission's options come to: the upload's metadata and the job's options. */
export interface ReadSubmission {
  /** The upload's user metadata (without `x-amz-meta-`): what intake reads. */
  readonly metadata: Record<string, string>;
  readonly options: JobOptions;
}

export const usd = (micros: number) => Math.round(micros) / 1_000_000;

/** A zod error as one line per issue, each with its path. */
export function zodIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message));
}

/**
 * Parses `body` with `schema` (a submission's shape) or throws naming every problem.
 * @throws InvalidJobRequestError
 */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issues = zodIssues(parsed.error);
  throw new InvalidJobRequestError(`invalid ${what}: ${issues.join('; ')}`, issues);
}

/**
 * The upload metadata a request comes to, as intake reads it: the one writer of it, for POST
 * /jobs and POST /quote as for the CLI's own uploads. `against` is an earlier job's id or, as
 * intake also reads it, `file:NAME`.
 */
export function submissionMetadata(
  request: Omit<SubmitRequest, 'filename' | 'against'> & { readonly against?: string },
  defaults: Pick<SubmitDefaults, 'defaultLane' | 'defaultCeilingMicros'>,
): Record<string, string> {
  const metadata: Record<string, string> = {
    lane: request.lane ?? defaults.defaultLane,
    'ceiling-usd': String(request.ceilingUsd ?? request.costCeilingUsd ?? usd(defaults.defaultCeilingMicros)),
  };
  if (request.analysts) metadata.analysts = request.analysts.join(',');
  if (request.allowPartial) metadata['allow-partial'] = 'true';
  if (request.gate) metadata.gate = request.gate;
  if (request.reviewHours !== undefined) metadata['review-hours'] = String(request.reviewHours);
  if (request.playbook !== undefined) metadata.playbook = request.playbook;
  if (request.contractType !== undefined) metadata['contract-type'] = request.contractType;
  if (request.party !== undefined) metadata.party = metadataValue(request.party);
  if (request.allAnalysts) metadata['all-analysts'] = 'true';
  if (request.fullPanel !== undefined) metadata['full-panel'] = String(request.fullPanel);
  if (request.against) metadata.against = request.against;
  if (request.againstFilename) metadata.against = `file:${request.againstFilename}`;
  return metadata;
}

/**
 * The upload metadata a validated request comes to, read back as intake will read it.
 * @throws InvalidJobRequestError when intake would refuse an option
 */
export function readSubmission(
  request: Omit<SubmitRequest, 'filename'>,
  defaults: SubmitDefaults,
  what = 'submission',
): ReadSubmission {
  const metadata = submissionMetadata(request, defaults);
  try {
    const options = readJobOptions(
      metadata,
      {},
      {
        lane: defaults.defaultLane,
        ceilingMicros: defaults.defaultCeilingMicros,
        ...(defaults.models ? { models: defaults.models } : {}),
        ...(defaults.minReviewHours !== undefined ? { minReviewHours: defaults.minReviewHours } : {}),
        ...(defaults.maxCeilingMicros !== undefined ? { maxCeilingMicros: defaults.maxCeilingMicros } : {}),
      },
    );
    return { metadata: { ...metadata, analysts: options.analysts.join(',') }, options };
  } catch (error) {
    if (isJobOptionError(error)) {
      throw new InvalidJobRequestError(`invalid ${what}: ${error.message}`, [error.message], {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * The version of the playbook a submission names, pinned into its metadata (`NAME@VERSION`) so
 * that the job is reviewed against the version the submitter was answered with, even if another
 * is put before intake reads the upload. Without a playbook, or a store to look it up in, the
 * submission is as it was.
 * @throws InvalidJobRequestError when the stack has no such playbook
 */
export async function pinPlaybook(
  read: ReadSubmission,
  playbooks: SubmitDefaults['playbooks'],
  what = 'submission',
): Promise<ReadSubmission & { readonly playbook?: JobPlaybook; readonly content?: Playbook }> {
  const request = read.options.playbook;
  if (!request || !playbooks) return read;
  let stored: StoredPlaybook;
  try {
    stored = await playbooks.get(request);
  } catch (error) {
    if (!isPlaybookNotFoundError(error)) throw error;
    const issue = `playbook: ${error.message}`;
    throw new InvalidJobRequestError(`invalid ${what}: ${issue}`, [issue], { cause: error });
  }
  const typeIssue = contractTypeIssue(stored.playbook, read.options.contractType);
  if (typeIssue) throw new InvalidJobRequestError(`invalid ${what}: ${typeIssue}`, [typeIssue]);
  const playbook = jobPlaybookOf(stored);
  return {
    ...read,
    metadata: { ...read.metadata, playbook: playbookRequestText(playbook) },
    playbook,
    content: stored.playbook,
  };
}

/** The options as POST /jobs and POST /quote answer them, with the playbook a submission resolved. */
export function submittedOptions(options: JobOptions, playbook?: JobPlaybook): SubmittedOptions {
  return {
    lane: options.lane,
    ceilingUsd: usd(options.ceilingMicros),
    analysts: [...options.analysts],
    gate: options.gate,
    ...(playbook ? { playbook } : {}),
    ...(options.contractType ? { contractType: options.contractType } : {}),
    ...(options.party ? { party: options.party } : {}),
    ...(options.allAnalysts ? { allAnalysts: true } : {}),
    ...(options.fullPanel ? { fullPanel: true as const } : {}),
  };
}
