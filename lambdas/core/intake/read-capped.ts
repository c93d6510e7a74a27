/**
 * Reading an object's body under a cap, as a stream: a body longer than the cap costs no more
 * memory than the cap.
 */
/**
 * A body stream that will not be read: closed, so its connection is not held. An error it raises
 * afterwards (its socket reset before the rest arrived, which the SDK's checksum stream passes
 * on) concerns nobody, and a stream error nobody listens for would end the process.
 */
export function dropBody(body: unknown): void {
  const stream = body as { on?: (event: 'error', listener: () => void) => void; destroy?: () => void };
  stream?.on?.('error', () => {});
  stream?.destroy?.();
}

/**
 * The body's bytes, or how many had come when they passed `cap` (and the stream was dropped): an
 * object's length is checked before it is read, and this holds the reader to it all the same.
 *
 * @example
 * const read = await readCapped(object.Body, 10 * 1024 * 1024);
 * if ('over' in read) reject(read.over);
 */
export async function readCapped(
  body: unknown,
  cap: number,
): Promise<{ readonly bytes: Uint8Array } | { readonly over: number }> {
  if (!body) return { bytes: new Uint8Array() };
  const chunks: Uint8Array[] = [];
  let length = 0;
  // Leaving the loop early ends the stream (the async iterator's return destroys it).
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    length += chunk.length;
    if (length > cap) return { over: length };
    chunks.push(chunk);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes };
}
