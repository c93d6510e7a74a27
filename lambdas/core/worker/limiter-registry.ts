import { AdaptiveLimiter } from './limiter.js';
import type { AdaptiveLimiterOptions, LimiterStats, WindowSnapshot } from './limiter-types.js';

/** Where a registry's limiters meet the limiters of other processes (see SharedLimits). */
export interface LimitSharing {
  /** A limiter was created for `modelId`. */
  join(modelId: string, limiter: AdaptiveLimiter): void;
  /** One of the joined limiters evaluated a window. */
  window(snapshot: WindowSnapshot): void;
}

/** Options of {@link LimiterRegistry}: defaults for every model, and per-model overrides. */
export interface LimiterRegistryOptions extends Omit<AdaptiveLimiterOptions, 'name'> {
  readonly perModel?: Readonly<Record<string, Omit<AdaptiveLimiterOptions, 'name' | 'onWindow' | 'now'>>>;
  /** Shares each model's limit with other processes. @default each process learns alone */
  readonly sharing?: LimitSharing;
}

/**
 * One {@link AdaptiveLimiter} per model id, created on first use: quotas are per model, and the
 * fallback model has its own. Keep one registry per process (module scope), not per chunk, so
 * what a limiter learned carries over from one chunk to the next.
 */
export class LimiterRegistry {
  private readonly limiters = new Map<string, AdaptiveLimiter>();

  constructor(private readonly options: LimiterRegistryOptions = {}) {}

  /** The limiter of `modelId`; snapshots and stats carry the model id as `name`. */
  for(modelId: string): AdaptiveLimiter {
    let limiter = this.limiters.get(modelId);
    if (!limiter) {
      const { perModel, sharing, onWindow, ...defaults } = this.options;
      limiter = new AdaptiveLimiter({
        ...defaults,
        ...perModel?.[modelId],
        name: modelId,
        ...(onWindow || sharing
          ? {
              onWindow: (w: WindowSnapshot) => {
                onWindow?.(w);
                sharing?.window(w);
              },
            }
          : {}),
      });
      this.limiters.set(modelId, limiter);
      sharing?.join(modelId, limiter);
    }
    return limiter;
  }

  /** Stats of every limiter created so far, by model id. */
  stats(): Record<string, LimiterStats> {
    return Object.fromEntries([...this.limiters].map(([modelId, limiter]) => [modelId, limiter.stats()]));
  }
}
