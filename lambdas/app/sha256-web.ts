/**
 * SHA-256, or HMAC-SHA-256 when constructed with a secret, on the browser's Web Crypto API, in
 * the shape `@smithy/signature-v4` takes as its `sha256` option (the CLI's is node:crypto's).
 * Web Crypto hashes whole buffers, so what `update` is given is kept until `digest`.
 */
type SourceData = string | ArrayBuffer | ArrayBufferView;

const toBytes = (data: SourceData): Uint8Array<ArrayBuffer> => {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  const view = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  return new Uint8Array(view);
};

export class WebSha256 {
  private readonly parts: Uint8Array<ArrayBuffer>[] = [];
  private readonly secret: Uint8Array<ArrayBuffer> | undefined;

  constructor(secret?: SourceData) {
    this.secret = secret === undefined ? undefined : toBytes(secret);
  }

  update(data: SourceData): void {
    this.parts.push(toBytes(data));
  }

  async digest(): Promise<Uint8Array> {
    const size = this.parts.reduce((n, p) => n + p.byteLength, 0);
    const all = new Uint8Array(size);
    let at = 0;
    for (const p of this.parts) {
      all.set(p, at);
      at += p.byteLength;
    }
    const subtle = globalThis.crypto.subtle;
    if (this.secret === undefined) return new Uint8Array(await subtle.digest('SHA-256', all));
    const key = await subtle.importKey('raw', this.secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
    ]);
    return new Uint8Array(await subtle.sign('HMAC', key, all));
  }

  reset(): void {
    this.parts.length = 0;
  }
}
