import { checkPanelModels, type PanelModels, selectAnalysts, withPrimary } from '../analysts/index.js';
import { isLane, LANE_CHOICES } from '../contracts.js';
import { guardOf } from '../error-guard.js';
import type { Lane } from '../model.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../models.js';
import { isPlaybookRefError, type PlaybookRequest, parsePlaybookRequest } from '../playbooks/index.js';
import {
  DEFAULT_MIN_REVIEW_HOURS,
  DEFAULT_REVIEW_HOURS,
  REVIEW_GATES,
  type ReviewGate,
} from '../state/job.js';

/** Per-document options, from S3 object metadata (`x-amz-meta-*`) or tags. */
export interface JobOptions {
  readonly lane: Lane;
  /** Cost ceiling, micro-dollars. */
  readonly costLimit: number;
  readonly analysts: readonly string[];
  /** The configured models, with the upload's `model` as every analyst's primary when given. */
  readonly models: PanelModels;
  /** Run even when the ceiling is below the quote's expected cost, up to the ceiling. */
  readonly allowPartial: boolean;
  /** Which findings wait for a reviewer before the report is final (`none`: no review). */
  readonly gate: ReviewGate;
  /** How long the review may take, in hours, before the report is written without it. */
  readonly reviewHours: number;
  /** The playbook to review against (`NAME` or `NAME@VERSION`); absent: the generic review. */
  readonly playbook?: PlaybookRequest;
  /** The contract type whose playbook topics apply (one of the playbook's); absent: detected. */
  readonly contractType?: string;
  /** Ask every selected analyst even when the playbook gives it nothing to judge. */
  readonly allAnalysts: boolean;
  /**
   * Ask every analyst of the panel about every clause (the default); false: the relevance screen
   * leaves out the analysts none of whose categories a clause can concern.
   */
  /** Ask every analyst about every clause; false (the default): the relevance screen runs first. */
  readonly fullPanel: boolean;
  /** The version this one answers, to compare it with: an earlier job, or a file uploaded beside it. */
  readonly against?: AgainstRequest;
}

/**
 * The version an upload answers: an earlier job of the same owner (`j-…`), or a file uploaded
 * beside it (`file:NAME`: the object `against/NAME` in the upload's own folder).
 */
export type AgainstRequest = { readonly jobId: string } | { readonly file: string };

/** Longest review deadline an upload may ask for: 30 days. */
export const MAX_REVIEW_HOURS = 720;

/**
 * The review window an upload asks for (the default when none), within the stack's floor and
 * {@link MAX_REVIEW_HOURS}.
 */
function readReviewHours(raw: string | undefined, floor = DEFAULT_MIN_REVIEW_HOURS): number {
  if (raw === undefined) return Math.max(DEFAULT_REVIEW_HOURS, floor);
  const hours = Number(raw);
  if (/^\d+(\.\d+)?$/.test(raw) && hours > 0 && hours >= floor && hours <= MAX_REVIEW_HOURS) return hours;
  throw new JobOptionError(
    `the 'review-hours' option must be a number of hours from ${floor} (this stack's shortest review) to ${MAX_REVIEW_HOURS}; got '${raw}'`,
  );
}

/** An option given on the upload is not valid; the message names it and what is allowed. */
export class JobOptionError extends Error {
  override readonly name = 'JobOptionError';
}

/** True for a bad per-document option. */
export const isJobOptionError = guardOf(JobOptionError);

/**
 * Reads `lane` (realtime|batch), `cost-ceiling-usd` (a positive decimal), `analysts` (a
 * comma-separated list of analyst ids), `model` (every analyst's primary model for this job),
 * `allow-partial`, `gate` (none|critical|high), `review-hours`, `playbook` (`NAME` or
 * `NAME@VERSION`; whether the stack has it is intake's to check), `contract-type` (with a
 * playbook: one of its contract types, which intake checks), `all-analysts` and `full-panel`
 * (true|false) and `against` (`j-…` or `file:NAME`) from metadata, falling back to tags, then
 * defaults.
 */
export function readJobOptions(
  metadata: Readonly<Record<string, string>>,
  tags: Readonly<Record<string, string>>,
  defaults: { lane: Lane; costLimit: number; models?: PanelModels; minReviewHours?: number },
): JobOptions {
  const pick = (name: string) => metadata[name] ?? tags[name];
  const laneRaw = pick('lane');
  if (laneRaw !== undefined && !isLane(laneRaw)) {
    throw new JobOptionError(`the 'lane' option must be ${LANE_CHOICES}; got '${laneRaw}'`);
  }
  const ceilingRaw = pick('cost-ceiling-usd');
  let costLimit = defaults.costLimit;
  if (ceilingRaw !== undefined) {
    const usd = Number(ceilingRaw);
    if (!/^\d+(\.\d+)?$/.test(ceilingRaw.trim()) || !Number.isFinite(usd) || usd <= 0 || usd > 100_000) {
      throw new JobOptionError(
        `the 'cost-ceiling-usd' option must be a number of dollars above 0 and at most 100000; got '${ceilingRaw}'`,
      );
    }
    costLimit = Math.round(usd * 1_000_000);
  }
  const analystsRaw = pick('analysts');
  let analysts: string[];
  try {
    analysts = selectAnalysts(
      analystsRaw
        ? analystsRaw
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : undefined,
    ).map((a) => a.id);
  } catch (error) {
    throw new JobOptionError(`the 'analysts' option is not valid: ${(error as Error).message}`);
  }
  const modelRaw = pick('model')?.trim();
  let models = defaults.models ?? { primary: PRIMARY_MODEL_ID, fallback: FALLBACK_MODEL_ID };
  if (modelRaw) {
    try {
      models = checkPanelModels(withPrimary(models, modelRaw));
    } catch (error) {
      throw new JobOptionError(`the 'model' option is not valid: ${(error as Error).message}`);
    }
  }
  const partialRaw = readBoolean(pick, 'allow-partial');
  const gateRaw = pick('gate')?.trim().toLowerCase();
  if (gateRaw !== undefined && !REVIEW_GATES.includes(gateRaw as ReviewGate)) {
    throw new JobOptionError(`the 'gate' option must be one of ${REVIEW_GATES.join(', ')}; got '${gateRaw}'`);
  }
  const reviewHours = readReviewHours(pick('review-hours')?.trim(), defaults.minReviewHours);
  const playbook = readPlaybook(pick('playbook'));
  const contractType = pick('contract-type')?.trim() || undefined;
  if (contractType !== undefined && !playbook)
    throw new JobOptionError(
      `the 'contract-type' option chooses a playbook's topics; give a 'playbook' with it (got contract-type '${contractType}')`,
    );
  if (contractType !== undefined && !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(contractType))
    throw new JobOptionError(
      `the 'contract-type' option must be lower-case words joined by hyphens, as a playbook's contract types are; got '${contractType}'`,
    );
  const allRaw = readBoolean(pick, 'all-analysts');
  const fullRaw = readBoolean(pick, 'full-panel');
  const against = readAgainst(pick('against'));
  return {
    lane: (laneRaw as Lane | undefined) ?? defaults.lane,
    costLimit,
    analysts,
    models,
    allowPartial: partialRaw === 'true',
    gate: (gateRaw as ReviewGate | undefined) ?? 'none',
    reviewHours,
    ...(playbook ? { playbook } : {}),
    ...(contractType ? { contractType } : {}),
    allAnalysts: allRaw === 'true',
    fullPanel: fullRaw === 'true',
    ...(against ? { against } : {}),
  };
}

/** The `against` option: `j-` and 20 hex digits, or `file:` and a plain file name. */
function readAgainst(raw: string | undefined): AgainstRequest | undefined {
  const value = raw?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^j-[0-9a-f]{20}$/.test(value)) return { jobId: value };
  const file = /^file:(.+)$/.exec(value)?.[1];
  if (file !== undefined && file.length <= 200 && !/[/\\\p{Cc}]/u.test(file) && file !== '.' && file !== '..')
    return { file };
  throw new JobOptionError(
    `the 'against' option names the version this one answers: an earlier job's id (j- and 20 hex digits) or file:NAME (a file uploaded beside it as against/NAME); got '${value}'`,
  );
}

/** A true|false option as given (lower case), or undefined when absent. */
function readBoolean(pick: (name: string) => string | undefined, name: string): string | undefined {
  const raw = pick(name)?.trim().toLowerCase();
  if (raw !== undefined && raw !== 'true' && raw !== 'false') {
    throw new JobOptionError(`the '${name}' option must be 'true' or 'false'; got '${raw}'`);
  }
  return raw;
}

/** The `playbook` option, or undefined when not given (or empty). */
function readPlaybook(raw: string | undefined): PlaybookRequest | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return parsePlaybookRequest(raw);
  } catch (error) {
    if (!isPlaybookRefError(error)) throw error;
    throw new JobOptionError(`the 'playbook' option is not valid: ${error.message}`);
  }
}
