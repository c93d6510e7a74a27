/**
 * People of a local user pool, signed in as the app signs them in: an administrator creates the
 * account (its email verified, as docs/security.md asks) and puts it in some groups; the person
 * signs in by SRP, sets a password of their own and an authenticator (the pool requires TOTP
 * MFA), and exchanges the ID token for an identity and temporary credentials from the identity
 * pool; the status API is then called with those, signed with SigV4 as the CLI signs. Cognito
 * identity pools that hand each person their own key exist only in the project's moto launcher
 * (moto_cognito.py), so a {@link SignInStack} runs on the test worker's moto server on any ground.
 */
import {
  CognitoIdentityClient,
  GetCredentialsForIdentityCommand,
  GetIdCommand,
} from '@aws-sdk/client-cognito-identity';
import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { ApiClient } from '../../bin/client/api-client.js';
import type { UserPoolTokens } from '../../lambdas/app/cognito-types.js';
import { userPoolSignIn } from '../../lambdas/app/user-pool.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { topology } from '../../lib/topology.js';
import { type EmulatorClients, emulatorClients, LOCAL_REGION } from '../../localstack/aws-clients.js';
import { startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { type ProvisionedResources, provision } from '../../localstack/provision.js';
import { type LocalApi, startPipelineApi } from '../../localstack/runtime/local-api.js';
import { LOCAL_RUN_DEFAULTS } from '../../localstack/runtime/local-env.js';
import { type LocalPipeline, startLocalPipeline } from '../../localstack/runtime/local-pipeline.js';
import { type LocalSignIn, provisionSignIn } from '../../localstack/sign-in.js';
import { motoEndpoint, uniquePrefix } from './local-aws.js';
import { freshCode } from './totp.js';

/** A signed-in person and their way into the status API. */
export interface Person {
  readonly email: string;
  readonly idToken: string;
  readonly accessToken: string;
  readonly identityId: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string; sessionToken: string };
  readonly api: ApiClient;
}

/** Where the people sign in and call. */
export interface SignInGround {
  readonly endpoint: string;
  readonly signIn: LocalSignIn;
  readonly apiUrl: string;
  readonly idp: CognitoIdentityProviderClient;
  readonly identity: CognitoIdentityClient;
}

/** The identity provider name the identity pool knows the user pool by. */
export const providerOf = (signIn: LocalSignIn) =>
  `cognito-idp.${LOCAL_REGION}.amazonaws.com/${signIn.userPoolId}`;

/** An administrator creates the account; the person signs in by SRP with a password and an authenticator of their own. */
export async function createAndSignIn(
  ground: SignInGround,
  email: string,
  groups: readonly string[] = [],
): Promise<UserPoolTokens> {
  const { idp, signIn } = ground;
  await idp.send(
    new AdminCreateUserCommand({
      UserPoolId: signIn.userPoolId,
      Username: email,
      TemporaryPassword: 'Temporary-passw0rd!',
      MessageAction: 'SUPPRESS',
      UserAttributes: [
        { Name: 'email', Value: email },
        { Name: 'email_verified', Value: 'true' },
      ],
    }),
  );
  for (const group of groups) {
    await idp.send(
      new AdminAddUserToGroupCommand({ UserPoolId: signIn.userPoolId, Username: email, GroupName: group }),
    );
  }
  const pools = {
    region: LOCAL_REGION,
    userPoolId: signIn.userPoolId,
    clientId: signIn.userPoolClientId,
    identityPoolId: signIn.identityPoolId,
    endpoint: ground.endpoint,
  };
  const first = await userPoolSignIn(pools, email, 'Temporary-passw0rd!');
  if (first.kind !== 'new-password')
    throw new Error(`expected a new password for ${email}, got ${first.kind}`);
  const setup = await first.answer(`Own-${email}-passw0rd!`);
  if (setup.kind !== 'mfa-setup') throw new Error(`expected MFA setup for ${email}, got ${setup.kind}`);
  const done = await setup.answer(await freshCode(setup.secret));
  if (done.kind !== 'done') throw new Error(`expected ${email} signed in, got ${done.kind}`);
  return done.session.tokens();
}

/** A person created, signed in, and given the identity pool's credentials. */
export async function signedInPerson(
  ground: SignInGround,
  email: string,
  groups: readonly string[] = [],
): Promise<Person> {
  const { idToken, accessToken } = await createAndSignIn(ground, email, groups);
  const logins = { [providerOf(ground.signIn)]: idToken };
  const id = await ground.identity.send(
    new GetIdCommand({ IdentityPoolId: ground.signIn.identityPoolId, Logins: logins }),
  );
  const identityId = id.IdentityId ?? '';
  const got = await ground.identity.send(
    new GetCredentialsForIdentityCommand({ IdentityId: identityId, Logins: logins }),
  );
  const c = got.Credentials;
  if (!c?.AccessKeyId || !c.SecretKey || !c.SessionToken) throw new Error(`no credentials for ${email}`);
  const credentials = {
    accessKeyId: c.AccessKeyId,
    secretAccessKey: c.SecretKey,
    sessionToken: c.SessionToken,
  };
  return {
    email,
    idToken,
    accessToken,
    identityId,
    credentials,
    api: new ApiClient({ url: ground.apiUrl, region: LOCAL_REGION, credentials }),
  };
}

/**
 * A local stack of its own with sign-in for people, on the worker's moto server (whose identity
 * pools hand each person keys of their own): the provisioned topology, the Bedrock stand-in, the pipeline,
 * the user pool and identity pool `local up` provisions, and the status API over them.
 */
export interface SignInStack extends SignInGround {
  readonly resources: ProvisionedResources;
  readonly pipeline: LocalPipeline;
  readonly localApi: LocalApi;
  readonly clients: EmulatorClients;
  /** Stops everything it started. */
  stop(): Promise<void>;
}

/** Starts a {@link SignInStack} under a prefix unique to `label`. */
export async function startSignInStack(label: string): Promise<SignInStack> {
  const endpoint = motoEndpoint();
  const t = topology({ prefix: uniquePrefix(label) });
  const clients = emulatorClients(endpoint);
  const resources = await provision(t, clients);
  const bedrock = await startBedrockStandIn({ seed: 7 });
  const pipeline = startLocalPipeline({
    awsEndpoint: endpoint,
    bedrockEndpoint: bedrock.url,
    topology: t,
    resources,
    settings: LOCAL_RUN_DEFAULTS,
    batchWorkers: 0,
  });
  const signIn = await provisionSignIn(endpoint, t.prefix);
  const localApi = await startPipelineApi({
    awsEndpoint: endpoint,
    db: pipeline.clients.db,
    resources,
    signIn,
  });
  // Sign-in calls are unsigned on AWS; the clients still need some credentials to start.
  const config = { endpoint: endpoint, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS };
  const idp = new CognitoIdentityProviderClient(config);
  const identity = new CognitoIdentityClient(config);
  return {
    resources,
    pipeline,
    localApi,
    clients,
    endpoint,
    signIn,
    apiUrl: localApi.url,
    idp,
    identity,
    async stop() {
      idp.destroy();
      identity.destroy();
      await localApi.close();
      await pipeline.stop();
      await bedrock.close();
      clients.destroy();
    },
  };
}
