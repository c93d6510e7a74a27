/**
 * CDK app: one clause-review stack. `npx cdk synth` / `npx cdk deploy`, with the deployer's
 * settings as context flags (`-c alertEmails=ops@example.com -c administrators=arn:… -c
 * retentionDays=30 -c removalPolicy=destroy -c defaultCeiling=20 -c realtimeConcurrency=20 …`;
 * every flag and its check is in lib/deploy-context.ts, and `-c nag=false` skips the cdk-nag
 * AwsSolutions checks). The account and region come from the CLI's credentials when there are
 * any; without them the stack is environment-agnostic and still synthesizes.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { ADDIN_PATH } from '../lib/addin-manifest.js';
import { addClauseReviewStack } from '../lib/clause-review-app.js';
import { isDeployContextError } from '../lib/deploy-context.js';
import { writeAddin } from './addin-bundle.js';
import { writeApp } from './app-bundle.js';

// The reviewer app (lambdas/app/) and its Word add-in, bundled here so `cdk deploy` puts them
// behind the stack's AppUrl (the add-in's manifest is written by the stack, which knows its URL).
const appDirectory = join(import.meta.dirname, '..', '.clause-review', 'app-build');
rmSync(appDirectory, { recursive: true, force: true });
await writeApp(appDirectory);
await writeAddin(join(appDirectory, ADDIN_PATH));

const app = new App();
try {
  addClauseReviewStack(app, {
    appDirectory,
    ...(process.env.CDK_DEFAULT_ACCOUNT ? { account: process.env.CDK_DEFAULT_ACCOUNT } : {}),
    ...(process.env.CDK_DEFAULT_REGION ? { region: process.env.CDK_DEFAULT_REGION } : {}),
  });
} catch (error) {
  if (!isDeployContextError(error)) throw error;
  // A bad flag is the deployer's to fix: say which, without a stack trace.
  console.error(`error: ${error.message}`);
  process.exit(1);
}
