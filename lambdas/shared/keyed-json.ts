import { z } from 'zod';
import { keyed } from '../core/lanes-and-limits.js';

/**
 * An environment variable holding one value per key as a JSON object, e.g. `QUEUE_URLS` =
 * `{"intake":"https://…","realtime":"https://…",…}`. The stack writes it from the same list
 * (`QUEUE_ROLES`, `LANES`) the runtime checks it against, so a lane added to that list reaches
 * every function without a variable, a schema entry or a mapping of its own. The parse fails
 * naming the key that is missing, unknown or bad.
 */
export function keyedJson<K extends string, V extends z.ZodType>(keys: readonly K[], value: V) {
  const shape = keyed(keys, () => value);
  return z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: `not JSON: expected an object with keys ${keys.join(', ')}`,
        });
        return z.NEVER;
      }
    })
    .pipe(z.strictObject(shape));
}
