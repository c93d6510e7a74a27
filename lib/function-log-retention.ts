import { type CfnResource, type IAspect, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';

/** Properties of {@link FunctionLogRetention}. */
export interface FunctionLogRetentionProps {
  /** How long the log groups it creates keep logs. */
  readonly retention: logs.RetentionDays;
  /**
   * What happens to those log groups when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

const isCfnResource = (node: IConstruct): node is CfnResource =>
  'cfnResourceType' in node && typeof (node as CfnResource).cfnResourceType === 'string';

/**
 * Gives every Lambda function of a scope that has no log group of its own one with a
 * retention, and points the function's logging at it. Without one, Lambda creates
 * `/aws/lambda/<name>` on first invocation and keeps its logs forever.
 *
 * The functions this is for are the ones aws-cdk-lib adds itself: the S3 bucket-notification
 * handler (an inline `AWS::Lambda::Function` resource) and `CustomResourceProvider` handlers
 * such as the VPC default-security-group restriction. aws-cdk-lib's own
 * `CustomResourceConfig.addLogRetentionLifetime` reaches only handlers built on
 * `SingletonFunction`, not these two kinds (aws/aws-cdk#33116, #32380), and a function's
 * `logRetention` prop would add a `Custom::LogRetention` function whose own logs never expire.
 * A Function aws-cdk-lib gave a managed `/aws/lambda/<name>` group (the
 * `useCdkManagedLogGroup` feature flag) keeps it, with the retention set. The project's
 * functions have their log groups already and are left as they are.
 *
 * @example Aspects.of(stack).add(new FunctionLogRetention({ retention: logs.RetentionDays.ONE_MONTH }))
 */
export class FunctionLogRetention implements IAspect {
  private readonly done = new WeakSet<IConstruct>();

  constructor(private readonly props: FunctionLogRetentionProps) {}

  visit(node: IConstruct): void {
    if (!isCfnResource(node) || node.cfnResourceType !== 'AWS::Lambda::Function' || this.done.has(node))
      return;
    // A CfnFunction says whether it has a logging config; the inline resources aws-cdk-lib
    // writes for its handlers never set one.
    if (node instanceof lambda.CfnFunction && node.loggingConfig !== undefined) return;
    this.done.add(node);
    // With `@aws-cdk/aws-lambda:useCdkManagedLogGroup`, a Function without a log group of its
    // own gets `/aws/lambda/<name>` created beside it, kept two years: that one gets the retention.
    const managed = node.node.scope?.node.tryFindChild('LogGroup');
    if (node instanceof lambda.CfnFunction && managed instanceof logs.LogGroup) {
      const cfn = managed.node.defaultChild as logs.CfnLogGroup;
      cfn.retentionInDays = this.props.retention;
      cfn.applyRemovalPolicy(this.props.removalPolicy ?? RemovalPolicy.RETAIN);
      return;
    }
    const scope = node.node.scope ?? Stack.of(node);
    const logGroup = new logs.LogGroup(scope, `${node.node.id}LogGroup`, {
      retention: this.props.retention,
      removalPolicy: this.props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    node.addPropertyOverride('LoggingConfig.LogGroup', logGroup.logGroupName);
  }
}
