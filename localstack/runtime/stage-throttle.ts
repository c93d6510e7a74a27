/**
 * An API Gateway stage's throttle, for the local status API: a token bucket of `burstLimit`
 * tokens refilled at `rateLimit` a second, one token a request, a request finding none refused
 * with 429 before authorization or the function. API Gateway throttles "using the token bucket
 * algorithm, where a token counts for a request"
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html); the
 * deployed stage is set with the same two figures (lib/status-api.ts, `STAGE_THROTTLE`).
 */

/** A stage's throttle: requests a second in the steady state, and the bucket's size. */
export interface StageThrottleSettings {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * What API Gateway answers a throttled request: 429 with the message of its default gateway
 * response for throttling, `{"message":"Too Many Requests"}`, and no Retry-After
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html,
 * THROTTLED).
 */
export const THROTTLED = { status: 429, body: { message: 'Too Many Requests' } } as const;

/**
 * The bucket: full at the start, `take` spends one token or says there is none.
 *
 * @example
 * const stage = new StageThrottle({ rateLimit: 20, burstLimit: 40 });
 * if (!stage.take()) reply(res, THROTTLED.status, THROTTLED.body);
 */
export class StageThrottle {
  private tokens: number;
  private at: number;

  constructor(
    private readonly settings: StageThrottleSettings,
    private readonly now: () => number = Date.now,
  ) {
    if (!(settings.rateLimit > 0 && settings.burstLimit >= 1)) {
      throw new RangeError(
        `a stage throttle needs a rate above 0 and a burst of at least 1; got ${settings.rateLimit} and ${settings.burstLimit}`,
      );
    }
    this.tokens = settings.burstLimit;
    this.at = now();
  }

  /** Spends a token for one request; false when the bucket is empty (the request is throttled). */
  take(): boolean {
    const now = this.now();
    const refilled = ((now - this.at) / 1000) * this.settings.rateLimit;
    this.tokens = Math.min(this.settings.burstLimit, this.tokens + refilled);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
