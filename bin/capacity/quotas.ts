/**
 * The account limits a capacity plan reads: Bedrock's per-model quotas for the models the
 * analysts call, and Lambda's concurrency. The defaults are AWS's default quota values in
 * us-east-1 for the cross-region (`us.`) inference profiles; an account can have less (new
 * accounts often do) or more (after an increase), so `clause-review plan` reads the applied
 * values with Service Quotas when credentials are present.
 *
 * Sources: the quota names and what they count,
 * https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html; the table of
 * defaults, https://docs.aws.amazon.com/general/latest/gr/bedrock.html#limits_bedrock; the
 * output burndown, https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-token-burndown.html;
 * Lambda's 1,000 concurrent executions, https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html.
 */

import { SignatureV4 } from '@smithy/signature-v4';
import type { StaticCredentials } from '../../lambdas/shared/aws-clients.js';
import { Sha256 } from '../../lambdas/shared/sha256.js';
import { send } from '../client/api-client.js';

/** A model's per-minute quotas as the capacity plan uses them. */
export interface ModelQuota {
  /** Cross-Region InvokeModel tokens per minute (input + output, output at its burndown). */
  readonly tokensPerMinute: number;
  /** Cross-Region InvokeModel requests per minute. */
  readonly requestsPerMinute: number;
  /** Quota tokens one output token takes (5 for the Claude 4 generation). */
  readonly outputBurndown: number;
  /** Where the two figures come from. */
  readonly source: 'AWS default' | 'account (Service Quotas)' | 'assumed';
}

/** A Bedrock model's quota codes and default values. */
interface QuotaSpec {
  readonly name: string;
  /** Absent where the code is not published: the values are then {@link QuotaSpec.assumed}. */
  readonly tokensCode?: string;
  readonly requestsCode?: string;
  /** The default values are another model's, not AWS's published ones for this model. */
  readonly assumed?: true;
  readonly tokensPerMinute: number;
  readonly requestsPerMinute: number;
  readonly outputBurndown: number;
}

/**
 * By foundation model id: the quotas a cross-region profile of it draws on. Claude Haiku 5.5's
 * quota codes and default values are not in the published table we could read: it is planned
 * with Claude Haiku 4.5's defaults, and the plan says they are assumed, with the quota's name to
 * look up ("Cross-Region InvokeModel tokens per minute for ${model}",
 * https://docs.aws.amazon.com/bedrock/latest/userguide/quotas-runtime.html).
 */
export const BEDROCK_QUOTAS: Readonly<Record<string, QuotaSpec>> = {
  'anthropic.claude-haiku-5-5': {
    name: 'Anthropic Claude Haiku 5.5',
    tokensPerMinute: 5_000_000,
    requestsPerMinute: 10_000,
    outputBurndown: 5,
    assumed: true,
  },
  'anthropic.claude-haiku-4-5-20251001-v1:0': {
    name: 'Anthropic Claude Haiku 4.5',
    tokensCode: 'L-58BE175A',
    requestsCode: 'L-CCA5DF70',
    tokensPerMinute: 5_000_000,
    requestsPerMinute: 10_000,
    outputBurndown: 5,
  },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': {
    name: 'Anthropic Claude Sonnet 4.5 V1',
    tokensCode: 'L-F4DDD3EB',
    requestsCode: 'L-4A6BFAB1',
    tokensPerMinute: 5_000_000,
    requestsPerMinute: 10_000,
    outputBurndown: 5,
  },
};

/** Lambda's concurrent executions per account and Region (quota L-B99A9384), by default. */
export const LAMBDA_CONCURRENCY = { code: 'L-B99A9384', default: 1000 } as const;

/** Raised for a model the quota table does not know: a plan for it would be a guess. */
export class UnknownQuotaError extends Error {
  constructor(readonly foundationModelId: string) {
    super(
      `no Bedrock quota is known for '${foundationModelId}' (known: ${Object.keys(BEDROCK_QUOTAS).join(', ')})`,
    );
    this.name = 'UnknownQuotaError';
  }
}

/** True for {@link UnknownQuotaError}. */
export function isUnknownQuotaError(error: unknown): error is UnknownQuotaError {
  return error instanceof UnknownQuotaError;
}

/** The default quotas of a foundation model. */
export function defaultQuota(foundationModelId: string): ModelQuota {
  const spec = BEDROCK_QUOTAS[foundationModelId];
  if (!spec) throw new UnknownQuotaError(foundationModelId);
  return {
    tokensPerMinute: spec.tokensPerMinute,
    requestsPerMinute: spec.requestsPerMinute,
    outputBurndown: spec.outputBurndown,
    source: spec.assumed ? 'assumed' : 'AWS default',
  };
}

/** The limits a plan is made with. */
export interface AccountLimits {
  /** By foundation model id. */
  readonly models: Readonly<Record<string, ModelQuota>>;
  readonly lambdaConcurrency: number;
  /** What was read, or why the defaults are used. */
  readonly note: string;
}

/** The AWS defaults for these foundation models. */
export function defaultLimits(foundationModelIds: readonly string[], note: string): AccountLimits {
  return {
    models: Object.fromEntries(foundationModelIds.map((id) => [id, defaultQuota(id)])),
    lambdaConcurrency: LAMBDA_CONCURRENCY.default,
    note,
  };
}

/** Raised when Service Quotas answers with an error. */
export class ServiceQuotasError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly quotaCode: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ServiceQuotasError';
  }
}

/** True for {@link ServiceQuotasError}. */
export function isServiceQuotasError(error: unknown): error is ServiceQuotasError {
  return error instanceof ServiceQuotasError;
}

/**
 * Reads one applied quota value with Service Quotas' GetServiceQuota (AWS JSON 1.1, signed
 * with the SDK's own SigV4 signer: the Service Quotas client package lags the SDK line the
 * other clients are on, and two read-only calls do not warrant it).
 * https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_GetServiceQuota.html
 */
export async function getServiceQuota(
  region: string,
  credentials: () => Promise<StaticCredentials>,
  serviceCode: string,
  quotaCode: string,
): Promise<number> {
  const url = new URL(`https://servicequotas.${region}.amazonaws.com/`);
  const body = JSON.stringify({ ServiceCode: serviceCode, QuotaCode: quotaCode });
  const signer = new SignatureV4({ credentials, region, service: 'servicequotas', sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'https:',
    hostname: url.hostname,
    path: '/',
    headers: {
      host: url.hostname,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'ServiceQuotasV20190624.GetServiceQuota',
    },
    body,
  });
  const r = await send(url, 'POST', signed.headers as Record<string, string>, body);
  const value = (r.body as { Quota?: { Value?: number } } | undefined)?.Quota?.Value;
  if (r.status !== 200 || typeof value !== 'number') {
    throw new ServiceQuotasError(
      `Service Quotas refused GetServiceQuota ${serviceCode}/${quotaCode} (HTTP ${r.status}): ${r.text.slice(0, 300)}`,
      r.status,
      quotaCode,
    );
  }
  return value;
}

/** The applied quotas of the account in `region`, for these foundation models. */
export async function readAccountLimits(
  region: string,
  credentials: () => Promise<StaticCredentials>,
  foundationModelIds: readonly string[],
): Promise<AccountLimits> {
  const models: Record<string, ModelQuota> = {};
  for (const id of foundationModelIds) {
    const spec = BEDROCK_QUOTAS[id];
    if (!spec) throw new UnknownQuotaError(id);
    if (!spec.tokensCode || !spec.requestsCode) {
      models[id] = defaultQuota(id);
      continue;
    }
    const [tokensPerMinute, requestsPerMinute] = await Promise.all([
      getServiceQuota(region, credentials, 'bedrock', spec.tokensCode),
      getServiceQuota(region, credentials, 'bedrock', spec.requestsCode),
    ]);
    models[id] = {
      tokensPerMinute,
      requestsPerMinute,
      outputBurndown: spec.outputBurndown,
      source: 'account (Service Quotas)',
    };
  }
  const lambdaConcurrency = await getServiceQuota(region, credentials, 'lambda', LAMBDA_CONCURRENCY.code);
  return {
    models,
    lambdaConcurrency,
    note: `applied quotas of the account in ${region}, read with Service Quotas`,
  };
}
