import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { dropBody, readCapped } from '../../../lambdas/core/intake/read-capped.js';
import { isInvocationDied, Life, mortal } from '../../soak/mortal.js';

/** A stream of `count` chunks of `size` bytes, counting the chunks it was asked for. */
function chunks(count: number, size: number): { stream: Readable; pulled: () => number } {
  let pulled = 0;
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < count; i++) {
        pulled++;
        yield new Uint8Array(size).fill(i);
      }
    })(),
  );
  return { stream, pulled: () => pulled };
}

describe('readCapped', () => {
  it('reads a body up to the cap whole, in order', async () => {
    const { stream } = chunks(4, 3);
    const read = await readCapped(stream, 12);
    expect(read).toEqual({ bytes: Uint8Array.from([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]) });
  });

  it('stops at the chunk that passes the cap, ends the stream and reads no further', async () => {
    const { stream, pulled } = chunks(1000, 1024);
    const read = await readCapped(stream, 10 * 1024);
    expect(read).toEqual({ over: 11 * 1024 });
    expect(pulled()).toBeLessThanOrEqual(12);
    expect(stream.destroyed).toBe(true);
  });

  it('reads no body as empty', async () => {
    expect(await readCapped(undefined, 10)).toEqual({ bytes: new Uint8Array() });
  });
});

describe('dropBody', () => {
  it('closes a stream intake will not read', () => {
    const { stream, pulled } = chunks(10, 1);
    dropBody(stream);
    expect(stream.destroyed).toBe(true);
    expect(pulled()).toBe(0);
  });
});

describe('a dropped body', () => {
  it('is closed, and an error it raises afterwards (its socket reset) ends nothing', () => {
    const body = new PassThrough();
    dropBody(body);
    expect(body.destroyed).toBe(true);
    // Without a listener, emitting 'error' throws: it would end the process.
    expect(() =>
      body.emit('error', Object.assign(new Error('aborted'), { code: 'ECONNRESET' })),
    ).not.toThrow();
    expect(() => dropBody(undefined)).not.toThrow();
  });

  it('is dropped with an answer the dying invocation of the soak never read', async () => {
    const body = new PassThrough();
    const client = { send: async (_command: { input?: unknown }) => ({ Body: body }) };
    const dying = mortal(client, new Life({ afterRequests: 1 }));
    await expect(dying.send({ input: {} })).rejects.toSatisfy(isInvocationDied);
    expect(body.destroyed).toBe(true);
    expect(() => body.emit('error', new Error('aborted'))).not.toThrow();
  });
});
