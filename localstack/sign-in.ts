/**
 * Sign-in for people on the local emulator: the same Cognito user pool (administrators create
 * the accounts, an `administrators` group whose role is the administrators role), app client
 * and identity pool (no guests, roles mapped by the ID token) as the deployed stack's
 * `ReviewerSignIn`, provisioned on moto through the real SDK clients. moto's identity pools
 * hand out credentials per person only through the project's launcher (`moto_cognito.py`).
 */
import {
  CognitoIdentityClient,
  CreateIdentityPoolCommand,
  SetIdentityPoolRolesCommand,
} from '@aws-sdk/client-cognito-identity';
import {
  CognitoIdentityProviderClient,
  CreateGroupCommand,
  CreateUserPoolClientCommand,
  CreateUserPoolCommand,
  SetUserPoolMfaConfigCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { guardOf } from '../lambdas/core/error-guard.js';
import { shippedApproverGroups } from '../lambdas/core/playbooks/index.js';
import { EMULATOR_CREDENTIALS } from '../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from './aws-clients.js';

/** The group whose members act on every job (the same name the stack gives it). */
export const LOCAL_ADMINISTRATORS_GROUP = 'administrators';

/** moto's default account, which its queue ARNs and STS sessions carry too. */
const ACCOUNT = '123456789012';

/** What {@link provisionSignIn} made. */
export interface LocalSignIn {
  readonly userPoolId: string;
  readonly userPoolClientId: string;
  readonly identityPoolId: string;
  /** The role every signed-in person gets. */
  readonly reviewerRoleArn: string;
  /** The role members of the administrators group get; the local API names it administrator. */
  readonly administratorRoleArn: string;
  /** The approver groups created beside it: those the shipped playbooks name, as the stack's pool has. */
  readonly approverGroups: readonly string[];
}

/** Raised when the emulator does not answer a sign-in resource as Cognito would. */
export class SignInProvisionError extends Error {
  override readonly name = 'SignInProvisionError';
  constructor(
    message: string,
    readonly resource: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** True for a {@link SignInProvisionError}. */
export const isSignInProvisionError = guardOf(SignInProvisionError);

function required(value: string | undefined, resource: string): string {
  if (!value) throw new SignInProvisionError(`the emulator created no ${resource}`, resource);
  return value;
}

/**
 * The pool's groups, as the stack's: `administrators` with the administrators role, and the
 * groups the shipped playbooks escalate to, with no role. Answers the approver groups.
 */
async function createGroups(
  idp: CognitoIdentityProviderClient,
  userPoolId: string,
  administratorRoleArn: string,
): Promise<string[]> {
  await idp.send(
    new CreateGroupCommand({
      UserPoolId: userPoolId,
      GroupName: LOCAL_ADMINISTRATORS_GROUP,
      Description: 'May read, decide, cancel and download every job',
      RoleArn: administratorRoleArn,
      Precedence: 0,
    }),
  );
  const approverGroups = shippedApproverGroups();
  for (const group of approverGroups) {
    await idp.send(
      new CreateGroupCommand({
        UserPoolId: userPoolId,
        GroupName: group,
        Description: 'Decides findings a playbook escalates to this group',
      }),
    );
  }
  return approverGroups;
}

/**
 * Creates the user pool, its `administrators` group, the shipped playbooks' approver groups and
 * its app client, and the identity pool with its roles, named after `prefix`.
 *
 * @example
 * const signIn = await provisionSignIn('http://127.0.0.1:5000', 'clause-review');
 * signIn.identityPoolId; // 'us-east-1:…'
 */
export async function provisionSignIn(endpoint: string, prefix: string): Promise<LocalSignIn> {
  const config = { endpoint, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS };
  const idp = new CognitoIdentityProviderClient(config);
  const identity = new CognitoIdentityClient(config);
  const reviewerRoleArn = `arn:aws:iam::${ACCOUNT}:role/${prefix}-reviewer`;
  const administratorRoleArn = `arn:aws:iam::${ACCOUNT}:role/${prefix}-administrator`;
  try {
    const pool = await idp.send(
      new CreateUserPoolCommand({
        PoolName: `${prefix}-people`,
        UsernameAttributes: ['email'],
        AutoVerifiedAttributes: ['email'],
        // The stack's `keepOriginal`: a new email waits for verification.
        UserAttributeUpdateSettings: { AttributesRequireVerificationBeforeUpdate: ['email'] },
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        Policies: {
          PasswordPolicy: {
            MinimumLength: 12,
            RequireLowercase: true,
            RequireUppercase: true,
            RequireNumbers: true,
            RequireSymbols: true,
            TemporaryPasswordValidityDays: 3,
          },
        },
        MfaConfiguration: 'ON',
        AccountRecoverySetting: { RecoveryMechanisms: [{ Name: 'verified_email', Priority: 1 }] },
      }),
    );
    const userPoolId = required(pool.UserPool?.Id, 'user pool');
    // The stack's pool requires MFA by authenticator app (`EnabledMfas: [SOFTWARE_TOKEN_MFA]`);
    // moto reads that only from SetUserPoolMfaConfig, and then asks a person without an
    // authenticator to set one up (MFA_SETUP) at sign-in
    // (https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_SetUserPoolMfaConfig.html).
    await idp.send(
      new SetUserPoolMfaConfigCommand({
        UserPoolId: userPoolId,
        MfaConfiguration: 'ON',
        SoftwareTokenMfaConfiguration: { Enabled: true },
      }),
    );
    const client = await idp.send(
      new CreateUserPoolClientCommand({
        UserPoolId: userPoolId,
        ClientName: `${prefix}-app`,
        GenerateSecret: false,
        // As the stack's client: SRP (the password never leaves the browser) and refresh
        // tokens, which sign-out revokes.
        ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
        EnableTokenRevocation: true,
        // Nothing that names a person in the decision trail.
        WriteAttributes: ['name', 'locale'],
        PreventUserExistenceErrors: 'ENABLED',
      }),
    );
    const userPoolClientId = required(client.UserPoolClient?.ClientId, 'user pool client');
    const approverGroups = await createGroups(idp, userPoolId, administratorRoleArn);
    const provider = `cognito-idp.${LOCAL_REGION}.amazonaws.com/${userPoolId}`;
    const identities = await identity.send(
      new CreateIdentityPoolCommand({
        IdentityPoolName: `${prefix.replace(/[^\w]/g, '_')}_people`,
        AllowUnauthenticatedIdentities: false,
        AllowClassicFlow: false,
        CognitoIdentityProviders: [
          { ProviderName: provider, ClientId: userPoolClientId, ServerSideTokenCheck: true },
        ],
      }),
    );
    const identityPoolId = required(identities.IdentityPoolId, 'identity pool');
    await identity.send(
      new SetIdentityPoolRolesCommand({
        IdentityPoolId: identityPoolId,
        Roles: { authenticated: reviewerRoleArn },
        RoleMappings: {
          [`${provider}:${userPoolClientId}`]: {
            Type: 'Token',
            AmbiguousRoleResolution: 'AuthenticatedRole',
          },
        },
      }),
    );
    return {
      userPoolId,
      userPoolClientId,
      identityPoolId,
      reviewerRoleArn,
      administratorRoleArn,
      approverGroups,
    };
  } catch (error) {
    if (isSignInProvisionError(error)) throw error;
    throw new SignInProvisionError(
      `could not provision sign-in on ${endpoint}: ${(error as Error).message}`,
      'cognito',
      { cause: error },
    );
  } finally {
    idp.destroy();
    identity.destroy();
  }
}
