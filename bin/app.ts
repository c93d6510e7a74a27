/**
 * CDK app: one clause-review stack. `npx cdk synth` / `npx cdk deploy`.
 *
 * Context: `prefix` (resource name prefix, default 'clause-review'; also the stack name) and
 * `models` (the analysts' Bedrock models as JSON, e.g.
 * `-c models='{"primary":"eu.anthropic.claude-haiku-4-5-20251001-v1:0","fallback":"eu.anthropic.claude-sonnet-4-5-20250929-v1:0"}'`;
 * `perAnalyst` overrides single analysts) and `nag` ('false' skips the cdk-nag AwsSolutions checks, which otherwise run as a policy
 * validation plugin and fail synth on any finding not acknowledged with a reason). The account and region come from the CLI's credentials when there are
 * any; without them the stack is environment-agnostic and still synthesizes.
 */
import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ClauseReviewStack } from '../lib/clause-review-stack.js';
import type { ModelIds } from '../lib/model-access.js';

const app = new App();
const prefix = String(app.node.tryGetContext('prefix') ?? 'clause-review');
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;
const modelsContext = app.node.tryGetContext('models');
const modelIds: ModelIds | undefined =
  typeof modelsContext === 'string' ? JSON.parse(modelsContext) : modelsContext;

const stack = new ClauseReviewStack(app, 'ClauseReview', {
  stackName: prefix,
  prefix,
  ...(modelIds ? { modelIds } : {}),
  description: 'clause-review: contract review by eleven LLM analysts on Amazon Bedrock',
  ...(account ? { env: { account, ...(region ? { region } : {}) } } : {}),
});
Tags.of(stack).add('application', 'clause-review');
Tags.of(stack).add('clause-review:prefix', prefix);

if (String(app.node.tryGetContext('nag') ?? 'true') !== 'false') {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}
