/**
 * The CDK app the deploy rehearsal synthesizes: the stack bin/app.ts builds (same construct,
 * stack name, tags and cdk-nag checks), with the deployer's alert emails and administrators
 * from context as well (`-c alertEmails=a@example.com,b@example.com -c administrators=arn:…`),
 * which the stack takes as props.
 */
import { App, Tags, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ClauseReviewStack } from '../../lib/clause-review-stack.js';

const app = new App();
const prefix = String(app.node.tryGetContext('prefix') ?? 'clause-review');
const list = (key: string): string[] =>
  String(app.node.tryGetContext(key) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const alertEmails = list('alertEmails');
const administrators = list('administrators');

const stack = new ClauseReviewStack(app, 'ClauseReview', {
  stackName: prefix,
  prefix,
  description: 'clause-review: contract review by eleven LLM analysts on Amazon Bedrock',
  ...(alertEmails.length > 0 ? { alertEmails } : {}),
  ...(administrators.length > 0 ? { administrators } : {}),
});
Tags.of(stack).add('application', 'clause-review');
Tags.of(stack).add('clause-review:prefix', prefix);

if (String(app.node.tryGetContext('nag') ?? 'true') !== 'false') {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}
