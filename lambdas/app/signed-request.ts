/**
 * A request to the status API signed with SigV4 for `execute-api`, as API Gateway's IAM
 * authorization requires: the one signer of the reviewer app, the Word add-in and the CLI. What
 * sends it differs (a browser's fetch sets Host itself; Node's http sends the headers as signed).
 */
import { SignatureV4 } from '@smithy/signature-v4';

type SourceData = string | ArrayBuffer | ArrayBufferView;

/** Credentials to sign with. */
export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** A SHA-256 the signer can use: the Web Crypto one in a page, Node's in the CLI. */
export type Sha256Constructor = new (
  secret?: SourceData,
) => {
  update(data: SourceData): void;
  digest(): Promise<Uint8Array>;
};

/** Where the status API is and how to sign for it. */
export interface ApiSignerOptions {
  readonly url: string;
  readonly region: string;
  readonly credentials: SigningCredentials | (() => Promise<SigningCredentials>);
  readonly sha256: Sha256Constructor;
}

/** A signed request: its URL, the headers as signed (Host included), and its body. */
export interface SignedRequest {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly payload: string | undefined;
}

/** Signs requests to one status API. */
export class ApiSigner {
  /** The API's root, with a trailing slash. */
  readonly base: URL;
  private readonly signer: SignatureV4;

  constructor(options: ApiSignerOptions) {
    this.base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
    this.signer = new SignatureV4({
      credentials: options.credentials,
      region: options.region,
      service: 'execute-api',
      sha256: options.sha256,
      uriEscapePath: true,
    });
  }

  /**
   * Signs `method path?query` with `body` (a string as it is, anything else as JSON), and with
   * `extra` headers signed too (the CLI's content-length).
   */
  async sign(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    query: Record<string, string> = {},
    extra: Record<string, string> = {},
  ): Promise<SignedRequest> {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const signed = await this.signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: {
        host: url.host,
        ...(payload !== undefined ? { 'content-type': 'application/json', ...extra } : extra),
      },
      ...(payload !== undefined ? { body: payload } : {}),
    });
    return { url, headers: signed.headers as Record<string, string>, payload };
  }
}
