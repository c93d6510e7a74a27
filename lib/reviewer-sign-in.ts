import { CfnElement, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { ADMINISTRATORS_GROUP, shippedApproverGroups } from '../lambdas/stack-interface.js';
import { checkPattern } from './checks.js';

/** The user pool group whose members may act on every job. */
export { ADMINISTRATORS_GROUP };

/** Properties of {@link ReviewerSignIn}. */
export interface ReviewerSignInProps {
  /**
   * What happens to the user pool when the stack is deleted.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * The approver groups the user pool is created with: the Cognito groups playbooks name to
   * decide escalated findings (a fallback's `approver`, a position's `exceptionApprover`). An
   * administrator creates the groups of other playbooks in the pool (docs/playbooks.md).
   * @default the groups the shipped playbooks name (`commercial-approvers`, `legal-approvers`)
   */
  readonly approverGroups?: readonly string[];
}

/**
 * Sign-in for people: a Cognito user pool (administrators create the accounts; TOTP MFA is
 * required) with an `administrators` group, and an identity pool that exchanges a signed-in
 * person's ID token for temporary AWS credentials. No long-lived key reaches a browser.
 *
 * Two roles, and one may do only what the other may: `execute-api:Invoke` on the status API
 * ({@link allowInvoke}). The identity pool's role mapping is `Token`: a person in the
 * `administrators` group carries `cognito:preferred_role` (the group's role, the administrators
 * role) in the ID token and gets that role; everyone else gets the reviewer role
 * (https://docs.aws.amazon.com/cognito/latest/developerguide/role-based-access-control.html).
 * The status API knows the administrators role as an administrator (every session of it acts
 * on every job) and owns jobs by the caller's Cognito identity, never by the shared role.
 */
export class ReviewerSignIn extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  readonly identityPool: cognito.CfnIdentityPool;
  /** The role every signed-in person gets. */
  readonly reviewerRole: iam.Role;
  /** The role members of the `administrators` group get; the status API names it administrator. */
  readonly administratorRole: iam.Role;
  /** The approver groups created in the pool, by name. */
  readonly approverGroups: readonly string[];
  private readonly invoke: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, props: ReviewerSignInProps = {}) {
    super(scope, id);
    this.userPool = new cognito.UserPool(this, 'Users', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      // A changed address does not replace a verified one until it is verified itself, so the
      // email the decision trail may show is always one its owner proved
      // (https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-settings-email-phone-verification.html).
      keepOriginal: { email: true },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      // Threat protection (compromised credentials, adaptive authentication) is a Plus feature.
      featurePlan: cognito.FeaturePlan.PLUS,
      standardThreatProtectionMode: cognito.StandardThreatProtectionMode.FULL_FUNCTION,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.client = this.userPool.addClient('App', {
      // A browser cannot keep a secret.
      generateSecret: false,
      // SRP only: the password never leaves the browser, only a proof of it. Refresh tokens
      // renew a sign-in and are revoked at sign-out (token revocation, on for new clients, is
      // spelled out so that nothing turns it off unnoticed).
      authFlows: { userSrp: true },
      enableTokenRevocation: true,
      // The app writes no attribute of a person's; above all not `email`, which names deciders.
      writeAttributes: new cognito.ClientAttributes().withStandardAttributes({
        fullname: true,
        locale: true,
      }),
      preventUserExistenceErrors: true,
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
    });
    this.identityPool = new cognito.CfnIdentityPool(this, 'Identities', {
      allowUnauthenticatedIdentities: false,
      allowClassicFlow: false,
      cognitoIdentityProviders: [
        {
          clientId: this.client.userPoolClientId,
          providerName: this.userPool.userPoolProviderName,
          // Cognito checks with the user pool that the token was not revoked.
          serverSideTokenCheck: true,
        },
      ],
    });
    this.reviewerRole = this.identityRole('ReviewerRole', 'a person signed in to clause-review');
    this.administratorRole = this.identityRole(
      'AdministratorRole',
      `a member of the clause-review '${ADMINISTRATORS_GROUP}' group`,
    );
    this.invoke = new iam.ManagedPolicy(this, 'InvokeStatusApi', {
      description: 'Call the clause-review status API, and nothing else',
      roles: [this.reviewerRole, this.administratorRole],
    });
    new cognito.CfnUserPoolGroup(this, 'Administrators', {
      userPoolId: this.userPool.userPoolId,
      groupName: ADMINISTRATORS_GROUP,
      description: 'May read, decide, cancel and download every job',
      roleArn: this.administratorRole.roleArn,
      precedence: 0,
    });
    this.approverGroups = this.createApproverGroups(props.approverGroups ?? shippedApproverGroups());
    new cognito.CfnIdentityPoolRoleAttachment(this, 'Roles', {
      identityPoolId: this.identityPool.ref,
      roles: { authenticated: this.reviewerRole.roleArn },
      roleMappings: {
        users: {
          identityProvider: `${this.userPool.userPoolProviderName}:${this.client.userPoolClientId}`,
          type: 'Token',
          ambiguousRoleResolution: 'AuthenticatedRole',
        },
      },
    });
  }

  /**
   * One group per approver, with no role: membership is what the status API asks the pool
   * (AdminListGroupsForUser) when someone decides an escalated finding; the role a member signs
   * with stays the reviewer role, so the identity pool's token mapping is unchanged.
   */
  private createApproverGroups(groups: readonly string[]): string[] {
    const names = [...new Set(groups)].sort();
    for (const name of names) {
      // CreateGroup's rule for a group name
      // (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_CreateGroup.html).
      checkPattern(
        this,
        'ReviewerSignIn approverGroups',
        name,
        /^[\p{L}\p{M}\p{S}\p{N}\p{P}]{1,128}$/u,
        'be Cognito group names',
      );
      if (name === ADMINISTRATORS_GROUP) continue;
      // Named after the group, so adding one leaves the others' logical ids as they were.
      new cognito.CfnUserPoolGroup(this, `ApproverGroup-${name.replaceAll('/', '-')}`, {
        userPoolId: this.userPool.userPoolId,
        groupName: name,
        description: 'Decides findings a playbook escalates to this group',
      });
    }
    return names.filter((n) => n !== ADMINISTRATORS_GROUP);
  }

  /**
   * A role only this identity pool's authenticated identities may assume
   * (https://docs.aws.amazon.com/cognito/latest/developerguide/role-trust-and-permissions.html).
   */
  private identityRole(id: string, who: string): iam.Role {
    return new iam.Role(this, id, {
      description: `Temporary credentials of ${who}: calls the status API only`,
      maxSessionDuration: Duration.hours(1),
      assumedBy: new iam.FederatedPrincipal(
        'cognito-identity.amazonaws.com',
        {
          StringEquals: { 'cognito-identity.amazonaws.com:aud': this.identityPool.ref },
          'ForAnyValue:StringLike': { 'cognito-identity.amazonaws.com:amr': 'authenticated' },
        },
        'sts:AssumeRoleWithWebIdentity',
      ),
    });
  }

  /** Lets both roles call every route of `api` (`execute-api:Invoke` on its ARN), and nothing else. */
  allowInvoke(api: apigw.HttpApi): void {
    this.invoke.addStatements(
      new iam.PolicyStatement({ actions: ['execute-api:Invoke'], resources: [api.arnForExecuteApi()] }),
    );
    const cfn = api.node.defaultChild;
    const apiId = cfn instanceof CfnElement ? Stack.of(api).getLogicalId(cfn) : api.node.id;
    Validations.of(this.invoke).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<${apiId}>/*/*/*]`,
      reason:
        "Signed-in people may call every route of this stack's own status API and nothing else: the wildcards are " +
        "the API's stage, method and path, and the API itself decides per job who may act (owner or administrator).",
    });
  }
}
