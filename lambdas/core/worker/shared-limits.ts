import type { LimitReport, SharedLimitReading } from '../state/model-limits.js';
import type { AdaptiveLimiter } from './limiter.js';
import type { LimitSharing } from './limiter-registry.js';
import type { WindowSnapshot } from './limiter-types.js';

/** Options of {@link SharedLimits}. */
export interface SharedLimitsOptions {
  /** The shared store (ModelLimits on the state table). */
  readonly limits: {
    report(r: LimitReport): Promise<SharedLimitReading>;
    correct(modelId: string, seen: number, total: number): Promise<void>;
  };
  /** This process, unique among those calling the models. */
  readonly workerId: string;
  /** A model's total before any process has reported (the fleet's starting concurrency). */
  readonly initial: number;
  /** Bounds of one process's share, as the limiter's min and max. */
  readonly min: number;
  readonly max: number;
  /** A process that has not reported for this long no longer holds a share. */
  readonly staleMs: number;
  readonly log?: (event: string, fields: Record<string, unknown>) => void;
}

interface Member {
  readonly limiter: AdaptiveLimiter;
  /** The part of the limiter's limit the shared total already accounts for. */
  share: number;
  /** Processes sharing the model at the last report (this one included). */
  members: number;
  /** The report loop in flight, if any: it also carries a window that ended during it. */
  sending: Promise<void> | undefined;
  again: boolean;
}

/**
 * One model's concurrency limit, learned once for every process that calls the model. Bedrock
 * quotas are per account and Region, not per process: N Lambda instances that each probe from
 * the start value would together overshoot the quota N times over, and each new instance
 * would learn again what the others know.
 *
 * A process's limiters keep deciding on their own at once (a throttle steps its limit down
 * before any request goes out); at the end of each of its windows the process adds what its
 * limiter moved since the last report, divided by the processes sharing the model, to the
 * model's shared total (every process's limiter reacts to the same model, so n whole moves
 * would move the fleet n times as far as one limiter), refreshes its membership, and takes
 * its share of the total's whole part back: `floor(total / members)`, the remainder going to
 * the first members in id order. A step down acts at once; a step up, when others share the
 * model, is granted only once its report has landed. A new process grants nothing until its first report has told it
 * its share, so it starts where the fleet is, not at the start value. A process that stops
 * reporting (a frozen or ended Lambda instance) drops out after `staleMs`, and its share
 * returns to the others.
 */
export class SharedLimits implements LimitSharing {
  private readonly members = new Map<string, Member>();

  constructor(private readonly options: SharedLimitsOptions) {}

  join(modelId: string, limiter: AdaptiveLimiter): void {
    // The first report adds nothing: it reads the total and this process's share of it.
    const member: Member = { limiter, share: limiter.limit, members: 1, sending: undefined, again: false };
    this.members.set(modelId, member);
    limiter.waitFor(this.sync(modelId, member));
  }

  window(snapshot: WindowSnapshot): void {
    const member = snapshot.name === undefined ? undefined : this.members.get(snapshot.name);
    if (!member || snapshot.name === undefined) return;
    const reported = this.sync(snapshot.name, member);
    // A step up waits for the fleet. Every process sees the same clean windows, so they step
    // up together; granting the whole step at once, before the report scales it to its 1/n
    // part, sent n steps' worth of calls to the model in the same moment, which throttled
    // them and cut every limit by the decrease factor. A step down acts at once.
    if (snapshot.decision.action === 'increase' && member.members > 1) member.limiter.waitFor(reported);
  }

  /**
   * One report at a time per model; a window that ends during one is reported after it, and
   * the promise returned settles once a report that includes it has landed.
   */
  private sync(modelId: string, member: Member): Promise<void> {
    if (member.sending) {
      member.again = true;
      return member.sending;
    }
    const loop = (async () => {
      try {
        do {
          member.again = false;
          await this.report(modelId, member);
        } while (member.again);
      } finally {
        member.sending = undefined;
      }
    })();
    member.sending = loop;
    return loop;
  }

  private async report(modelId: string, member: Member): Promise<void> {
    const { limits, workerId, initial, min, max, staleMs } = this.options;
    const atSend = member.limiter.limit;
    let reading: SharedLimitReading;
    try {
      // Each process's limiter reads the fleet's signal (a throttle, a clean window at the
      // limit) and moves on it; n processes that each add their whole move would move the
      // total n times as far as one limiter would, and overshoot by n on every probe. Each
      // adds its 1/n part, so the fleet moves as one limiter does.
      const delta = (atSend - member.share) / member.members;
      reading = await limits.report({ modelId, workerId, delta, initial, staleMs });
    } catch (error) {
      // The limiter goes on alone; its moves are reported with the next window.
      this.options.log?.('shared-limit-unavailable', { modelId, error: String(error) });
      return;
    }
    const n = Math.max(1, reading.members.length);
    const bounded = Math.min(max * n, Math.max(min * n, reading.total));
    if (bounded !== reading.total) await limits.correct(modelId, reading.total, bounded);
    // The total keeps the fractions of the moves; the permits handed out are its whole part.
    const total = Math.floor(bounded);
    const rank = Math.max(0, reading.members.indexOf(workerId));
    const share = Math.floor(total / n) + (rank < total % n ? 1 : 0);
    // Moves the limiter made while the report was out are kept, and go out with the next one.
    member.limiter.rebase(share + (member.limiter.limit - atSend));
    member.share = share;
    member.members = n;
  }
}
