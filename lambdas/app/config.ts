/**
 * What the page that serves the app says about where things are: `config.json` beside
 * index.html (written by `local up`, or by the stack beside the bundle).
 */

/** How a person signs in. `keys`: an access key pair typed in and kept in memory only (local stack). */
export type SignInConfig =
  | { readonly kind: 'keys'; readonly hint?: string }
  | {
      readonly kind: 'cognito';
      readonly userPoolId: string;
      readonly clientId: string;
      readonly identityPoolId: string;
      /** Both Cognito services on one URL (an emulator); absent on AWS. */
      readonly endpoint?: string;
    };

/** An analyst of the panel, as the upload form offers it. */
export interface AnalystChoice {
  readonly id: string;
  readonly name: string;
}

/** The app's configuration. */
export interface AppConfig {
  readonly apiUrl: string;
  readonly region: string;
  readonly signIn: SignInConfig;
  readonly analysts: readonly AnalystChoice[];
}

function analystsOf(value: unknown, bad: (why: string) => Error): AnalystChoice[] {
  if (!Array.isArray(value) || value.length === 0) throw bad('analysts must be a list of { id, name }');
  return value.map((a: unknown) => {
    const { id, name } = (a ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || typeof name !== 'string')
      throw bad('analysts must be a list of { id, name }');
    return { id, name };
  });
}

/** config.json was missing or not what the app needs. */
export class AppConfigError extends Error {
  override readonly name = 'AppConfigError';
  constructor(
    message: string,
    readonly context: { readonly url: string },
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** True for an {@link AppConfigError}. */
export function isAppConfigError(error: unknown): error is AppConfigError {
  return error instanceof AppConfigError;
}

/** Checks a parsed config.json. @throws AppConfigError naming the field at fault */
export function readAppConfig(value: unknown, url = 'config.json'): AppConfig {
  const bad = (why: string) => new AppConfigError(`${url}: ${why}`, { url });
  if (typeof value !== 'object' || value === null) throw bad('is not a JSON object');
  const v = value as Record<string, unknown>;
  if (typeof v.apiUrl !== 'string' || !/^https?:\/\//.test(v.apiUrl))
    throw bad('apiUrl must be an http(s) URL');
  if (typeof v.region !== 'string' || v.region === '') throw bad('region must be a region name');
  const s = v.signIn as Record<string, unknown> | undefined;
  const analysts = analystsOf(v.analysts, bad);
  if (s?.kind === 'keys') {
    return {
      apiUrl: v.apiUrl,
      region: v.region,
      analysts,
      signIn: { kind: 'keys', ...(typeof s.hint === 'string' ? { hint: s.hint } : {}) },
    };
  }
  if (s?.kind === 'cognito') {
    for (const f of ['userPoolId', 'clientId', 'identityPoolId'] as const) {
      if (typeof s[f] !== 'string' || s[f] === '') throw bad(`signIn.${f} must be a string`);
    }
    return {
      apiUrl: v.apiUrl,
      region: v.region,
      analysts,
      signIn: {
        kind: 'cognito',
        userPoolId: String(s.userPoolId),
        clientId: String(s.clientId),
        identityPoolId: String(s.identityPoolId),
        ...(typeof s.endpoint === 'string' ? { endpoint: s.endpoint } : {}),
      },
    };
  }
  throw bad("signIn.kind must be 'keys' or 'cognito'");
}
