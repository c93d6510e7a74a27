import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { dropBody, readCapped } from '../../lambdas/core/intake/read-capped.js';

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
