import { CfnElement, Stack } from 'aws-cdk-lib';
import type * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * The CloudFormation logical id of a bucket, as cdk-nag names it in a finding's resource
 * (`Resource::<LogicalId.Arn>/prefix*`), so a suppression can name exactly that grant.
 */
export function bucketLogicalId(bucket: s3.IBucket): string {
  const cfn = bucket.node.defaultChild;
  return cfn instanceof CfnElement ? Stack.of(bucket).getLogicalId(cfn) : bucket.node.id;
}
