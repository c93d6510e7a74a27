/**
 * The CDK app's one stack, built from CDK context (lib/deploy-context.ts): what `npx cdk synth`
 * and `npx cdk deploy` run through bin/app.ts, and what the infra tests build with the same
 * context, so a flag that works in a test works on the command line.
 */
import { type App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ClauseReviewStack } from './clause-review-stack.js';
import { readDeployContext, stackPropsOf } from './deploy-context.js';

/** Where the stack goes; without an account the stack is environment-agnostic. */
export interface DeployTarget {
  readonly account?: string;
  readonly region?: string;
  /**
   * The reviewer app's built files, which the stack deploys behind its CloudFront URL.
   * @default none: the app's bucket is left as it is
   */
  readonly appDirectory?: string;
}

/**
 * Adds the clause-review stack to `app`, named after the `prefix` context (default
 * 'clause-review'), tagged, and with the cdk-nag AwsSolutions checks as a policy validation
 * plugin unless `-c nag=false`. Throws `DeployContextError` naming a bad flag.
 */
export function addClauseReviewStack(app: App, target: DeployTarget = {}): ClauseReviewStack {
  const ctx = readDeployContext((key) => app.node.tryGetContext(key), app);
  const stack = new ClauseReviewStack(app, 'ClauseReview', {
    ...stackPropsOf(ctx),
    stackName: ctx.prefix,
    description: 'clause-review: contract review by eleven LLM analysts on Amazon Bedrock',
    ...(target.appDirectory ? { appDirectory: target.appDirectory } : {}),
    ...(target.account
      ? { env: { account: target.account, ...(target.region ? { region: target.region } : {}) } }
      : {}),
  });
  Tags.of(stack).add('application', 'clause-review');
  Tags.of(stack).add('clause-review:prefix', ctx.prefix);
  if (String(app.node.tryGetContext('nag') ?? 'true') !== 'false') {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  }
  return stack;
}
