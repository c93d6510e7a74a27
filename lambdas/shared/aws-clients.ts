/** Static credentials (emulators, tests); everywhere else the SDK's default chain applies. */
export interface StaticCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** Where and as whom the SDK clients talk. Empty in Lambda and Fargate: the SDK's defaults apply. */
export interface AwsConnection {
  /** Endpoint override (moto, LocalStack). `AWS_ENDPOINT_URL` is honoured by the SDK itself too. */
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: StaticCredentials;
}

/**
 * The shared part of every SDK client's configuration. S3 is addressed path-style whenever
 * an endpoint override is in play, because emulators on 127.0.0.1 cannot serve
 * virtual-hosted bucket names.
 */
export function clientConfig(connection: AwsConnection = {}): {
  endpoint?: string;
  region?: string;
  credentials?: StaticCredentials;
  forcePathStyle?: boolean;
} {
  const endpoint = connection.endpoint ?? process.env.AWS_ENDPOINT_URL;
  return {
    ...(connection.endpoint ? { endpoint: connection.endpoint } : {}),
    ...(connection.region ? { region: connection.region } : {}),
    ...(connection.credentials ? { credentials: connection.credentials } : {}),
    ...(endpoint ? { forcePathStyle: true } : {}),
  };
}

/** Credentials for emulators, which check that a signature exists but not what signed it. */
export const EMULATOR_CREDENTIALS: StaticCredentials = { accessKeyId: 'test', secretAccessKey: 'test' };
