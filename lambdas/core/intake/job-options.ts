import { checkPanelModels, type PanelModels, selectAnalysts, withPrimary } from '../analysts/index.js';
import type { Lane } from '../model.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../models.js';

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
}

/** An option given on the upload is not valid; the message names it and what is allowed. */
export class JobOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobOptionError';
  }
}

/** True for a bad per-document option. */
export function isJobOptionError(error: unknown): error is JobOptionError {
  return error instanceof JobOptionError;
}

/**
 * Reads `lane` (realtime|batch), `cost-ceiling-usd` (a positive decimal) and `analysts` (a
 * comma-separated list of analyst ids) and `model` (every analyst's primary model for this job)
 * from metadata, falling back to tags, then defaults.
 */
export function readJobOptions(
  metadata: Readonly<Record<string, string>>,
  tags: Readonly<Record<string, string>>,
  defaults: { lane: Lane; costLimit: number; models?: PanelModels },
): JobOptions {
  const pick = (name: string) => metadata[name] ?? tags[name];
  const laneRaw = pick('lane');
  if (laneRaw !== undefined && laneRaw !== 'realtime' && laneRaw !== 'batch') {
    throw new JobOptionError(`the 'lane' option must be 'realtime' or 'batch'; got '${laneRaw}'`);
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
  const partialRaw = pick('allow-partial')?.trim().toLowerCase();
  if (partialRaw !== undefined && partialRaw !== 'true' && partialRaw !== 'false') {
    throw new JobOptionError(`the 'allow-partial' option must be 'true' or 'false'; got '${partialRaw}'`);
  }
  return {
    lane: (laneRaw as Lane | undefined) ?? defaults.lane,
    costLimit,
    analysts,
    models,
    allowPartial: partialRaw === 'true',
  };
}
