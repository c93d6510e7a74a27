/**
 * cdk-nag's findings on the function aws-cdk-lib adds to copy the reviewer app's files into its
 * bucket (`BucketDeployment`), each acknowledged with the reason it does not apply.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import type { Construct } from 'constructs';
import { bucketLogicalId } from './bucket-logical-id.js';

/** cdk-nag's findings on aws-cdk-lib's own copy function, which runs only during deployment. */
export function acknowledgeDeploymentHandler(
  scope: Construct,
  deployment: s3deploy.BucketDeployment,
  bucket: s3.IBucket,
): void {
  const stack = Stack.of(scope);
  const handler = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  const role = deployment.handlerRole;
  const why =
    "aws-cdk-lib's BucketDeployment function, invoked only by CloudFormation while deploying the app's files";
  if (handler) {
    Validations.of(handler).acknowledge({
      id: 'AwsSolutions-L1',
      reason: `${why}; aws-cdk-lib chooses and updates its runtime (Python 3.13 in this version), not this stack.`,
    });
  }
  Validations.of(role).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason: `${why}: the AWS-managed AWSLambdaBasicExecutionRole policy only lets it write its own CloudWatch logs.`,
    },
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason: `${why}: it reads the staged files from the CDK assets bucket and writes and prunes objects in the app's bucket only.`,
    })),
    {
      id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*]',
      reason: `${why}: it reads the staged app files, which CDK puts in its bootstrap assets bucket under content-hash keys.`,
    },
    {
      id: `AwsSolutions-IAM5[Resource::<${bucketLogicalId(bucket)}.Arn>/*]`,
      reason: `${why}: it replaces the app's files, whose names come from the build, in the app's own bucket.`,
    },
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: `${why}: cloudfront:CreateInvalidation and GetInvalidation, so viewers get the new files at once; aws-cdk-lib grants them on '*'.`,
    },
  );
}
