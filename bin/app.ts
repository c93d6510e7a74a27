/**
 * CDK app: one clause-review stack. `npx cdk synth` / `npx cdk deploy`.
 *
 * Context: `prefix` (resource name prefix, default 'clause-review'; also the stack name) and
 * `nag` ('false' skips the cdk-nag AwsSolutions checks, which otherwise run as a policy
 * validation plugin and fail synth on any finding not acknowledged with a reason). The account and region come from the CLI's credentials when there are
 * any; without them the stack is environment-agnostic and still synthesizes.
 */
import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ClauseReviewStack } from '../lib/clause-review-stack.js';

const app = new App();
const prefix = String(app.node.tryGetContext('prefix') ?? 'clause-review');
const account = process.env.CDK_DEFAULT_ACCOUNT;
const region = process.env.CDK_DEFAULT_REGION;

const stack = new ClauseReviewStack(app, 'ClauseReview', {
  stackName: prefix,
  prefix,
  description: 'clause-review: contract review by eleven LLM analysts on Amazon Bedrock',
  ...(account ? { env: { account, ...(region ? { region } : {}) } } : {}),
});
Tags.of(stack).add('application', 'clause-review');
Tags.of(stack).add('clause-review:prefix', prefix);

if (String(app.node.tryGetContext('nag') ?? 'true') !== 'false') {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}
