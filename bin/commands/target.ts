import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { clientConfig, EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { apiUrlFromOutputs, isStackOutputsError, resourcesFromOutputs } from '../../lib/stack-outputs.js';
import type { ProvisionedResources } from '../../localstack/provision.js';
import { ApiClient } from '../client/api-client.js';
import { CliError } from './cli-error.js';
import { isAlive, localStateFile, readLocalState } from './local-state.js';

/** SDK clients of the target, for commands that go past the API (dlq). */
export interface TargetClients {
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly s3: S3Client;
  readonly sns: SNSClient;
}

/** A deployed stack or the local one: its API, resources and clients. */
export interface Target {
  readonly kind: 'deployed' | 'local';
  /** Stack name, or 'local'. */
  readonly name: string;
  readonly region: string;
  readonly api: ApiClient;
  readonly resources: ProvisionedResources;
  readonly clients: TargetClients;
  destroy(): void;
}

/** Options every command against a stack takes. */
export interface TargetOptions {
  readonly stack?: string;
  readonly profile?: string;
  readonly region?: string;
  readonly local?: boolean;
}

/** The parseArgs options of {@link TargetOptions}. */
export const TARGET_ARGS = {
  stack: { type: 'string' },
  profile: { type: 'string' },
  region: { type: 'string' },
  local: { type: 'boolean' },
} as const;

export const TARGET_USAGE = `Target options (every command but review and local):
  --stack NAME              CloudFormation stack name (default 'clause-review', what npx cdk deploy names it)
  --profile P               AWS profile (default: the SDK's chain: AWS_PROFILE, environment, SSO, instance role)
  --region R                AWS region (default: AWS_REGION or the profile's)
  --local                   the local stack a running 'clause-review local up' started`;

function clients(config: ReturnType<typeof clientConfig> & { profile?: string }): TargetClients {
  const { forcePathStyle, ...common } = config;
  return {
    db: DynamoDBDocumentClient.from(new DynamoDBClient(common), {
      marshallOptions: { removeUndefinedValues: true },
    }),
    sqs: new SQSClient(common),
    sns: new SNSClient(common),
    s3: new S3Client({ ...common, ...(forcePathStyle ? { forcePathStyle } : {}) }),
  };
}

const destroyAll = (c: TargetClients) => () => {
  for (const client of [c.db, c.sqs, c.s3, c.sns]) client.destroy();
};

function localTarget(): Target {
  const file = localStateFile();
  const state = readLocalState(file);
  if (!state || !isAlive(state.pid)) {
    throw new CliError(
      `no local stack is running (${state ? `process ${state.pid} is gone` : `no ${file}`}); ` +
        "start one with 'npx clause-review local up' in another terminal",
    );
  }
  const c = clients(
    clientConfig({ endpoint: state.awsEndpoint, region: state.region, credentials: EMULATOR_CREDENTIALS }),
  );
  return {
    kind: 'local',
    name: 'local',
    region: state.region,
    api: new ApiClient({ url: state.apiUrl, region: state.region, credentials: EMULATOR_CREDENTIALS }),
    resources: state.resources,
    clients: c,
    destroy: destroyAll(c),
  };
}

/** The CLI error that explains an AWS failure (no credentials, no region, no stack), or undefined. */
export function explainAwsError(error: unknown, options: TargetOptions, stack: string): CliError | undefined {
  const name = (error as Error).name;
  const message = (error as Error).message ?? '';
  if (name === 'CredentialsProviderError' || /credential/i.test(message)) {
    const source = options.profile
      ? `profile '${options.profile}'`
      : process.env.AWS_PROFILE
        ? `profile '${process.env.AWS_PROFILE}' (AWS_PROFILE)`
        : 'the environment (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY), AWS_PROFILE or the default profile';
    return new CliError(
      `no usable AWS credentials from ${source}: ${message}. Sign in (aws sso login / aws configure) or pass --profile NAME; for the local stack pass --local`,
      2,
      { cause: error },
    );
  }
  if (/region is missing/i.test(message)) {
    return new CliError('no AWS region: pass --region or set AWS_REGION', 2, { cause: error });
  }
  if (name === 'ValidationError' && /does not exist/.test(message)) {
    return new CliError(
      `stack '${stack}' not found${options.region ? ` in ${options.region}` : ''}: deploy it with 'npx cdk deploy' or pass --stack NAME (and --region)`,
      2,
      { cause: error },
    );
  }
  return undefined;
}

/** The default stack name: what `npx cdk deploy` names it (bin/app.ts: the prefix, 'clause-review'). */
export const DEFAULT_STACK = 'clause-review';

async function deployedTarget(options: TargetOptions): Promise<Target> {
  const stack = options.stack ?? DEFAULT_STACK;
  const config = {
    ...(options.region ? { region: options.region } : {}),
    ...(options.profile ? { profile: options.profile } : {}),
  };
  const cfn = new CloudFormationClient(config);
  try {
    const described = await cfn.send(new DescribeStacksCommand({ StackName: stack }));
    const outputs = Object.fromEntries(
      (described.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue]),
    );
    let resources: ProvisionedResources;
    let apiUrl: string;
    try {
      resources = resourcesFromOutputs(outputs);
      apiUrl = apiUrlFromOutputs(outputs);
    } catch (error) {
      if (isStackOutputsError(error)) throw new CliError(`stack '${stack}': ${error.message}`);
      throw error;
    }
    const region = await cfn.config.region();
    const c = clients({ ...config, region });
    return {
      kind: 'deployed',
      name: stack,
      region,
      api: new ApiClient({ url: apiUrl, region, credentials: cfn.config.credentials }),
      resources,
      clients: c,
      destroy: destroyAll(c),
    };
  } catch (error) {
    throw explainAwsError(error, options, stack) ?? error;
  } finally {
    // The API client keeps using the credential provider; only the socket pool goes.
    cfn.destroy();
  }
}

/** Resolves `--local` or `--stack/--profile/--region` to a target. */
export function resolveTarget(options: TargetOptions): Promise<Target> {
  if (options.local) {
    if (options.stack || options.profile)
      throw new CliError('--local cannot be combined with --stack or --profile');
    return Promise.resolve(localTarget());
  }
  return deployedTarget(options);
}

/**
 * Splits the target options (`--stack`, `--profile`, `--region`, `--local`) from the rest of
 * a command line, for commands that parse their own options strictly (dlq).
 */
export function splitTargetArgs(argv: readonly string[]): { target: TargetOptions; rest: string[] } {
  const target: { -readonly [K in keyof TargetOptions]: TargetOptions[K] } = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const m = /^--(stack|profile|region)(?:=(.*))?$/.exec(arg);
    if (m) {
      const value = m[2] ?? argv[++i];
      if (value === undefined || value.startsWith('--')) throw new CliError(`--${m[1]} needs a value`);
      target[m[1] as 'stack' | 'profile' | 'region'] = value;
    } else if (arg === '--local') target.local = true;
    else rest.push(arg);
  }
  return { target, rest };
}
