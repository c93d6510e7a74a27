/**
 * The deploy rehearsal: synthesizes the stack with the CDK CLI, publishes its assets, deploys the
 * template through CloudFormation into LocalStack in host mode (started and stopped by the
 * project's launcher), checks what was created against the template, lets the CLI read the
 * stack's outputs (`doctor --stack`, `submit --stack … --dry-run`), and tears the stack down.
 * What LocalStack cannot create is taken out of the template by name (template-transform.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { PutBucketNotificationConfigurationCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startBedrockStandIn } from '../bedrock/index.js';
import { startLocalStackServer } from '../localstack-server.js';
import { PROJECT_ROOT } from '../python-venv.js';
import { checkDeployment, checkRetained, type RetainedResource } from './checks.js';
import { localStackResourceProviders, RehearsalError, whyNotCreated } from './coverage.js';
import {
  createStack,
  deleteStack,
  deployBootstrap,
  type PublishedAsset,
  publishFileAssets,
  readAssetManifest,
  stackOutputs,
  stackResources,
} from './deploy.js';
import type { CheckResult } from './template-read.js';
import {
  type RemovedResource,
  type Replacement,
  resolveDeferred,
  type Template,
  type TransformResult,
  transformTemplate,
} from './template-transform.js';

/** The emulator's account; LocalStack's default. */
export const REHEARSAL_ACCOUNT = '000000000000';
export const REHEARSAL_REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };

/** What the rehearsal's LocalStack loads: CloudFormation and every service the kept resources need. */
export const REHEARSAL_SERVICES = [
  'cloudformation',
  'iam',
  'sts',
  's3',
  'sqs',
  'dynamodb',
  'sns',
  'cloudwatch',
  'events',
  'logs',
  'kms',
  'ssm',
  'ec2',
] as const;

export interface RehearsalOptions {
  /** CDK context flags (`-c key=value`) for the synth. */
  readonly context?: Readonly<Record<string, string>>;
  /** A contract for `submit --dry-run`. */
  readonly sampleFile: string;
  readonly log?: (line: string) => void;
}

/** A CLI command run against the deployed stack. */
export interface CliRun {
  readonly command: string;
  readonly exitCode: number;
  readonly output: string;
}

/** Everything the rehearsal found. */
export interface RehearsalReport {
  readonly stackName: string;
  readonly localStackVersion: string;
  readonly templateResources: number;
  /** The synthesized template's resources by type, before the transform. */
  readonly templateTypes: Readonly<Record<string, number>>;
  readonly removed: readonly RemovedResource[];
  readonly replacements: readonly Replacement[];
  readonly published: readonly PublishedAsset[];
  readonly notPublished: readonly { id: string; name: string; reason: string }[];
  readonly applied: readonly string[];
  readonly created: Readonly<Record<string, number>>;
  readonly checks: readonly CheckResult[];
  readonly cli: readonly CliRun[];
  readonly retained: readonly RetainedResource[];
  readonly seconds: Readonly<Record<'synth' | 'deploy' | 'teardown' | 'total', number>>;
}

/** `npx cdk synth` of the rehearsal's app into `outDir`, without AWS credentials (an environment-agnostic template). */
function synth(outDir: string, context: Readonly<Record<string, string>>): Promise<void> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^AWS_|^CDK_DEFAULT_/.test(k) || k === 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
    ),
  ) as NodeJS.ProcessEnv;
  const args = [
    join(PROJECT_ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk'),
    'synth',
    '--quiet',
    '--app',
    'npx tsx bin/app.ts',
    '--output',
    outDir,
    ...Object.entries(context).flatMap(([k, v]) => ['--context', `${k}=${v}`]),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: PROJECT_ROOT,
      env: { ...env, AWS_EC2_METADATA_DISABLED: 'true' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-3000);
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new RehearsalError('synth', `cdk synth exited ${code}:\n${stderr}`)),
    );
  });
}

/** Runs the CLI with the AWS SDK pointed at LocalStack and Bedrock's control plane at the stand-in. */
function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bin/clause-review.ts', ...args],
      {
        cwd: PROJECT_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('exit', (code) =>
      resolve({ command: `clause-review ${args.join(' ')}`, exitCode: code ?? 1, output: output.trim() }),
    );
  });
}

const seconds = (since: number) => Math.round((Date.now() - since) / 100) / 10;

interface Deployed {
  readonly published: PublishedAsset[];
  readonly notPublished: { id: string; name: string; reason: string }[];
  readonly applied: string[];
  readonly outputs: Record<string, string>;
}

/** Bootstrap, asset publication, CreateStack, and the removed custom resources the rehearsal applies. */
async function deploy(
  clients: { cfn: CloudFormationClient; s3: S3Client },
  endpoint: string,
  stackName: string,
  assembly: { dir: string; template: Template; result: TransformResult },
  python: string,
  log: (line: string) => void,
): Promise<Deployed> {
  const { cfn, s3 } = clients;
  const bucket = await deployBootstrap(cfn, REHEARSAL_ACCOUNT, REHEARSAL_REGION);
  const manifest = readAssetManifest(assembly.dir, 'ClauseReview');
  const env = { account: REHEARSAL_ACCOUNT, region: REHEARSAL_REGION, python };
  const published = await publishFileAssets(s3, manifest, assembly.dir, env);
  const notPublished = Object.entries(manifest.dockerImages ?? {}).map(([id, image]) => {
    const users = Object.entries(assembly.template.Resources)
      .filter(([, r]) => JSON.stringify(r).includes(id))
      .map(([logicalId, r]) => `${logicalId} (${r.Type})`);
    return {
      id,
      name: image.displayName ?? id,
      reason: `a container image: building it needs Docker and LocalStack's free edition has no ECR; used only by ${users.join(', ')}, which is not created`,
    };
  });
  // As `cdk deploy` does with a template over 50 KB: uploaded, then named by URL.
  const templateKey = `rehearsal/${stackName}.template.json`;
  const body = JSON.stringify(assembly.result.template);
  await s3.send(new PutObjectCommand({ Bucket: bucket, Key: templateKey, Body: body }));
  const kept = Object.keys(assembly.result.template.Resources).length;
  log(
    `deploying ${kept} of ${Object.keys(assembly.template.Resources).length} resources through CloudFormation`,
  );
  await createStack(cfn, stackName, `${endpoint}/${bucket}/${templateKey}`);
  const outputs = await stackOutputs(cfn, stackName);
  const applied: string[] = [];
  for (const d of assembly.result.deferred) {
    const props = resolveDeferred(d.properties, outputs) as {
      BucketName: string;
      NotificationConfiguration: Record<string, unknown>;
    };
    await s3.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: props.BucketName,
        NotificationConfiguration: props.NotificationConfiguration,
      }),
    );
    applied.push(
      `${d.logicalId} (${d.type}): PutBucketNotificationConfiguration on ${props.BucketName}, as its handler would`,
    );
  }
  return { published, notPublished, applied, outputs };
}

/** `doctor --stack` and `submit --stack … --dry-run`, reading the deployed stack's outputs. */
async function cliAgainst(stackName: string, endpoint: string, bedrockUrl: string, sampleFile: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AWS_ENDPOINT_URL: endpoint,
    // Bedrock's control plane (GetFoundationModel, GetInferenceProfile) is the stand-in's.
    AWS_ENDPOINT_URL_BEDROCK: bedrockUrl,
    AWS_REGION: REHEARSAL_REGION,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  delete env.AWS_PROFILE;
  const target = ['--stack', stackName, '--region', REHEARSAL_REGION];
  return [
    await runCli(['doctor', ...target], env),
    await runCli(['submit', sampleFile, ...target, '--dry-run'], env),
  ];
}

const countBy = (types: readonly (string | undefined)[]) => {
  const counts: Record<string, number> = {};
  for (const t of types) counts[t ?? '?'] = (counts[t ?? '?'] ?? 0) + 1;
  return counts;
};

/** The whole rehearsal; LocalStack and the Bedrock stand-in are stopped whatever happens. */
export async function rehearse(options: RehearsalOptions): Promise<RehearsalReport> {
  const log = options.log ?? (() => {});
  const started = Date.now();
  const context = { ...options.context };
  const stackName = context.prefix ?? 'clause-review';
  const dir = mkdtempSync(join(tmpdir(), 'clause-review-rehearsal-'));
  const flags = Object.entries(context).map(([k, v]) => `-c ${k}=${v}`);
  log(`synthesizing the stack (cdk synth ${flags.join(' ')}) while LocalStack starts`);
  const synthesized = synth(dir, context).then(() => seconds(started));
  // Offline, LocalStack cannot load its catalogue of supported types, so it cannot refuse
  // unsupported ones up front (CFN_IGNORE_UNSUPPORTED_RESOURCE_TYPES=0 refuses every type); it
  // mocks a type without a provider instead. The transform removes each of those by name first,
  // and a check proves no resource was mocked.
  const server = await startLocalStackServer({ services: REHEARSAL_SERVICES, log });
  const standIn = await startBedrockStandIn();
  const aws = { endpoint: server.endpoint, region: REHEARSAL_REGION, credentials: CREDENTIALS };
  const cfn = new CloudFormationClient(aws);
  const s3 = new S3Client({ ...aws, forcePathStyle: true });
  try {
    log(`LocalStack ${server.version} in host mode on ${server.endpoint}`);
    const synthSeconds = await synthesized;
    const template = JSON.parse(readFileSync(join(dir, 'ClauseReview.template.json'), 'utf8')) as Template;
    const venv = process.env.CLAUSE_REVIEW_LOCALSTACK_VENV ?? join(PROJECT_ROOT, '.venv-localstack');
    const providers = localStackResourceProviders(venv);
    const result = transformTemplate(template, (type) => whyNotCreated(type, providers));
    let t = Date.now();
    const python = join(venv, 'bin', 'python');
    const deployed = await deploy(
      { cfn, s3 },
      server.endpoint,
      stackName,
      { dir, template, result },
      python,
      log,
    );
    const deploySeconds = seconds(t);
    const resources = await stackResources(cfn, stackName);
    const { outputs, ...assets } = deployed;
    log('checking what was created against the template');
    const checks = await checkDeployment({
      aws,
      template: result.template,
      resources,
      outputs,
      deferred: result.deferred,
      context,
    });
    log('running the CLI against the stack');
    const cli = await cliAgainst(stackName, server.endpoint, standIn.url, options.sampleFile);
    t = Date.now();
    log('deleting the stack');
    await deleteStack(cfn, stackName);
    const teardownSeconds = seconds(t);
    const retained = await checkRetained({ aws, template: result.template, resources });
    return {
      stackName,
      localStackVersion: server.version,
      templateResources: Object.keys(template.Resources).length,
      templateTypes: countBy(Object.values(template.Resources).map((r) => r.Type)),
      removed: result.removed,
      replacements: result.replacements,
      ...assets,
      created: countBy(
        resources.filter((r) => r.ResourceStatus === 'CREATE_COMPLETE').map((r) => r.ResourceType),
      ),
      checks,
      cli,
      retained,
      seconds: {
        synth: synthSeconds,
        deploy: deploySeconds,
        teardown: teardownSeconds,
        total: seconds(started),
      },
    };
  } finally {
    cfn.destroy();
    s3.destroy();
    await standIn.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
