import { money } from '../../text/money.js';
import { checkPanelModels, type PanelModels, selectAnalysts, withPrimary } from '../analysts/index.js';
import type { Lane } from '../clause.js';
import { guardOf } from '../error-guard.js';
import { isLane, LANE_CHOICES } from '../lanes-and-limits.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../model-catalogue.js';
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
  readonly ceilingMicros: number;
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
  /** The party the review is for, as the contract names it; absent: the playbook's side, matched. */
  readonly party?: string;
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

/** Longest name a `party` option may give: a party's name as a contract writes it. */
export const MAX_PARTY_CHARS = 200;

/**
 * A metadata value as S3 carries it over REST: US-ASCII as it is, anything else as an RFC 2047
 * encoded word, the form S3 itself returns non-ASCII metadata in
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingMetadata.html#UserMetadata).
 */
export function metadataValue(text: string): string {
  if (/^[\u0020-\u007e]*$/.test(text)) return text;
  return `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** The text of a metadata value: an RFC 2047 encoded word (B or Q, UTF-8) decoded, else as it is. */
export function metadataText(raw: string): string {
  const word = raw.trim().match(/^=\?utf-8\?([bq])\?([^?]*)\?=$/i);
  if (!word) return raw;
  const [, encoding, body = ''] = word;
  if (encoding?.toLowerCase() === 'b') return Buffer.from(body, 'base64').toString('utf8');
  const bytes = body.replace(/_/g, ' ').replace(/=([0-9a-f]{2})/gi, (_, hex: string) => `%${hex}`);
  try {
    return decodeURIComponent(bytes);
  } catch {
    return raw;
  }
}

/** The `party` option: a name of 1-200 printable characters (RFC 2047 encoded when not ASCII), or absent. */
function readParty(raw: string | undefined): string | undefined {
  const party = raw === undefined ? undefined : metadataText(raw).trim();
  if (party === undefined || party === '') return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a party's name holds no control characters.
  if (party.length > MAX_PARTY_CHARS || /[\u0000-\u001f\u007f]/.test(party))
    throw new JobOptionError(
      `the 'party' option must be a party's name as the contract writes it, at most ${MAX_PARTY_CHARS} printable characters; got '${party.slice(0, 40)}${party.length > 40 ? '…' : ''}'`,
    );
  return party;
}

/** An option given on the upload is not valid; the message names it and what is allowed. */
export class JobOptionError extends Error {
  override readonly name = 'JobOptionError';
}

/** True for a bad per-document option. */
export const isJobOptionError = guardOf(JobOptionError);

/**
 * Reads `lane` (realtime|batch), `ceiling-usd` (a positive decimal), `analysts` (a
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
  defaults: {
    lane: Lane;
    ceilingMicros: number;
    models?: PanelModels;
    minReviewHours?: number;
    maxCeilingMicros?: number;
  },
): JobOptions {
  const pick = (name: string) => metadata[name] ?? tags[name];
  const laneRaw = pick('lane');
  if (laneRaw !== undefined && !isLane(laneRaw)) {
    throw new JobOptionError(`the 'lane' option must be ${LANE_CHOICES}; got '${laneRaw}'`);
  }
  // `cost-ceiling-usd`, the option's earlier name, is still read for one release.
  const ceilingKey =
    pick('ceiling-usd') === undefined && pick('cost-ceiling-usd') !== undefined
      ? 'cost-ceiling-usd'
      : 'ceiling-usd';
  const ceilingRaw = pick(ceilingKey);
  const ceilingMicros =
    ceilingRaw === undefined
      ? defaults.ceilingMicros
      : readCeiling(ceilingKey, ceilingRaw, defaults.maxCeilingMicros);
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
  const party = readParty(pick('party'));
  const allRaw = readBoolean(pick, 'all-analysts');
  const fullRaw = readBoolean(pick, 'full-panel');
  const against = readAgainst(pick('against'));
  return {
    lane: (laneRaw as Lane | undefined) ?? defaults.lane,
    ceilingMicros,
    analysts,
    models,
    allowPartial: partialRaw === 'true',
    gate: (gateRaw as ReviewGate | undefined) ?? 'none',
    reviewHours,
    ...(playbook ? { playbook } : {}),
    ...(contractType ? { contractType } : {}),
    ...(party ? { party } : {}),
    allAnalysts: allRaw === 'true',
    fullPanel: fullRaw === 'true',
    ...(against ? { against } : {}),
  };
}

/** The most a ceiling may be unless the stack says less: $100,000. */
export const HIGHEST_CEILING_MICROS = 100_000_000_000;

/**
 * The `ceiling-usd` option in micro-dollars: a positive decimal, at most the stack's maximum,
 * which a refusal names.
 */
function readCeiling(key: string, raw: string, maxCeilingMicros = HIGHEST_CEILING_MICROS): number {
  const usd = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(usd) || usd <= 0 || usd > 100_000) {
    throw new JobOptionError(
      `the '${key}' option must be a number of dollars above 0 and at most 100000; got '${raw}'`,
    );
  }
  const micros = Math.round(usd * 1_000_000);
  if (micros > maxCeilingMicros) {
    throw new JobOptionError(
      `the '${key}' option of ${money(micros)} is above this stack's maximum ceiling of ${money(maxCeilingMicros)} ` +
        '(-c maxCeiling); ask for at most that',
    );
  }
  return micros;
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
