/**
 * The CloudFormation side of the deploy rehearsal: the bootstrap resources a CDK deployment
 * expects, the publication of a cloud assembly's file assets, and creating and deleting a stack
 * with the waits `cdk deploy` and `cdk destroy` do.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CloudFormationClient,
  CreateStackCommand,
  DeleteStackCommand,
  DescribeStackEventsCommand,
  DescribeStackResourcesCommand,
  DescribeStacksCommand,
  type StackResource,
} from '@aws-sdk/client-cloudformation';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { PROJECT_ROOT } from '../python-venv.js';
import { RehearsalError } from './coverage.js';

/** The default CDK bootstrap qualifier, as in every synthesized asset destination. */
const QUALIFIER = 'hnb659fds';

/** Where `cdk bootstrap` would put file assets for this account and region. */
export const assetsBucket = (account: string, region: string) =>
  `cdk-${QUALIFIER}-assets-${account}-${region}`;

/** The bootstrap version the pinned CDK CLI's bootstrap template sets (its `CdkBootstrapVersion`). */
export function bootstrapVersion(): string {
  const file = join(
    PROJECT_ROOT,
    'node_modules',
    'aws-cdk',
    'lib',
    'api',
    'bootstrap',
    'bootstrap-template.yaml',
  );
  const text = readFileSync(file, 'utf8');
  const version = /CdkBootstrapVersion:[\s\S]*?Value:\s*'?(\d+)'?/.exec(text)?.[1];
  if (!version) throw new RehearsalError('bootstrap', `no CdkBootstrapVersion value in ${file}`);
  return version;
}

/**
 * The part of `cdk bootstrap` a deployment of this stack reads: the file-assets bucket and the
 * SSM parameter holding the bootstrap version (the template's `BootstrapVersion` parameter and
 * `CheckBootstrapVersion` rule read it), deployed as the `CDKToolkit` stack through
 * CloudFormation. The real bootstrap template also has an ECR repository (for image assets) and
 * the deployment roles, which the rehearsal does not use.
 */
export async function deployBootstrap(
  cfn: CloudFormationClient,
  account: string,
  region: string,
): Promise<string> {
  const bucket = assetsBucket(account, region);
  const template = {
    Resources: {
      StagingBucket: { Type: 'AWS::S3::Bucket', Properties: { BucketName: bucket } },
      CdkBootstrapVersion: {
        Type: 'AWS::SSM::Parameter',
        Properties: {
          Type: 'String',
          Name: `/cdk-bootstrap/${QUALIFIER}/version`,
          Value: bootstrapVersion(),
        },
      },
    },
  };
  await cfn.send(new CreateStackCommand({ StackName: 'CDKToolkit', TemplateBody: JSON.stringify(template) }));
  await waitForStack(cfn, 'CDKToolkit', 'CREATE', 120_000);
  return bucket;
}

/** One file asset of the cloud assembly manifest, and what became of it. */
export interface PublishedAsset {
  readonly id: string;
  readonly name: string;
  readonly key: string;
  readonly bytes: number;
}

interface AssetManifest {
  files?: Record<
    string,
    {
      displayName?: string;
      source: { path: string; packaging?: 'file' | 'zip' };
      destinations: Record<string, { bucketName: string; objectKey: string }>;
    }
  >;
  dockerImages?: Record<
    string,
    { displayName?: string; source: { directory?: string; dockerFile?: string } }
  >;
}

/** The assembly's asset manifest for one stack (`<artifact>.assets.json`). */
export function readAssetManifest(assemblyDir: string, artifactId: string): AssetManifest {
  return JSON.parse(readFileSync(join(assemblyDir, `${artifactId}.assets.json`), 'utf8')) as AssetManifest;
}

/** A directory asset zipped as `cdk-assets` zips it: its contents at the archive's root. */
function zipDirectory(dir: string, python: string): Buffer {
  const work = mkdtempSync(join(tmpdir(), 'clause-review-asset-'));
  try {
    const base = join(work, 'asset');
    const r = spawnSync(
      python,
      ['-c', 'import shutil, sys; shutil.make_archive(sys.argv[1], "zip", root_dir=sys.argv[2])', base, dir],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new RehearsalError('publish', `zipping ${dir} failed: ${r.stderr}`);
    return readFileSync(`${base}.zip`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Uploads every file asset of the manifest to its destination bucket (the account and region
 * filled in), zipping directory assets. Container image assets are not published: see the
 * caller for why.
 */
export async function publishFileAssets(
  s3: S3Client,
  manifest: AssetManifest,
  assemblyDir: string,
  env: { account: string; region: string; python: string },
): Promise<PublishedAsset[]> {
  const published: PublishedAsset[] = [];
  // The manifest's destinations name the environment as CloudFormation pseudo parameters.
  const pseudo: Record<string, string> = { AccountId: env.account, Region: env.region, Partition: 'aws' };
  const fill = (s: string) => s.replace(/\$\{AWS::(\w+)\}/g, (whole, name: string) => pseudo[name] ?? whole);
  for (const [id, asset] of Object.entries(manifest.files ?? {})) {
    const path = join(assemblyDir, asset.source.path);
    if (!existsSync(path)) throw new RehearsalError('publish', `asset ${id} has no source at ${path}`);
    const body =
      statSync(path).isDirectory() || asset.source.packaging === 'zip'
        ? zipDirectory(path, env.python)
        : readFileSync(path);
    for (const destination of Object.values(asset.destinations)) {
      const bucket = fill(destination.bucketName);
      const key = fill(destination.objectKey);
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
      published.push({
        id,
        name: asset.displayName ?? asset.source.path,
        key: `s3://${bucket}/${key}`,
        bytes: body.length,
      });
    }
  }
  return published;
}

const TERMINAL_FAILURE = /(FAILED|ROLLBACK_COMPLETE|ROLLBACK_FAILED)$/;

/** The failure reasons of a stack's events, newest first. */
async function failureReasons(cfn: CloudFormationClient, stack: string): Promise<string[]> {
  const events = await cfn.send(new DescribeStackEventsCommand({ StackName: stack }));
  return (events.StackEvents ?? [])
    .filter((e) => e.ResourceStatus?.endsWith('FAILED'))
    .map((e) => `${e.LogicalResourceId} (${e.ResourceType}): ${e.ResourceStatusReason ?? 'no reason'}`)
    .slice(0, 10);
}

/** Waits until `stack` ends its create or delete; throws with CloudFormation's reasons when it failed. */
export async function waitForStack(
  cfn: CloudFormationClient,
  stack: string,
  action: 'CREATE' | 'DELETE',
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let status: string | undefined;
    try {
      const described = await cfn.send(new DescribeStacksCommand({ StackName: stack }));
      status = described.Stacks?.[0]?.StackStatus;
    } catch (error) {
      if (action === 'DELETE' && /does not exist/.test((error as Error).message)) return;
      throw error;
    }
    if (status === `${action}_COMPLETE`) return;
    if (status && TERMINAL_FAILURE.test(status) && !(action === 'DELETE' && status === 'ROLLBACK_COMPLETE')) {
      throw new RehearsalError(
        action === 'CREATE' ? 'deploy' : 'teardown',
        `stack ${stack} ended ${status}:\n  ${(await failureReasons(cfn, stack)).join('\n  ')}`,
      );
    }
    if (Date.now() > deadline) {
      throw new RehearsalError(
        action === 'CREATE' ? 'deploy' : 'teardown',
        `stack ${stack} still ${status} after ${timeoutMs} ms`,
      );
    }
    await sleep(1000);
  }
}

/** Creates the stack from a template already in S3, as `cdk deploy` does for large templates. */
export async function createStack(
  cfn: CloudFormationClient,
  stack: string,
  templateUrl: string,
): Promise<void> {
  await cfn.send(
    new CreateStackCommand({
      StackName: stack,
      TemplateURL: templateUrl,
      Capabilities: ['CAPABILITY_IAM', 'CAPABILITY_NAMED_IAM', 'CAPABILITY_AUTO_EXPAND'],
    }),
  );
  await waitForStack(cfn, stack, 'CREATE', 900_000);
}

/** The stack's resources as CloudFormation lists them. */
export async function stackResources(cfn: CloudFormationClient, stack: string): Promise<StackResource[]> {
  return (await cfn.send(new DescribeStackResourcesCommand({ StackName: stack }))).StackResources ?? [];
}

/** The stack's outputs, key to value. */
export async function stackOutputs(
  cfn: CloudFormationClient,
  stack: string,
): Promise<Record<string, string>> {
  const described = await cfn.send(new DescribeStacksCommand({ StackName: stack }));
  return Object.fromEntries(
    (described.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']),
  );
}

/** Deletes the stack and waits until CloudFormation has. */
export async function deleteStack(cfn: CloudFormationClient, stack: string): Promise<void> {
  await cfn.send(new DeleteStackCommand({ StackName: stack }));
  await waitForStack(cfn, stack, 'DELETE', 600_000);
}
