/**
 * Fair shares of a limiter's permits between owners, and between the jobs of one owner. A
 * worker process runs chunks of many jobs at once; without this, the permits of a model go to
 * whichever chunk asks first, so one owner with fifty calls waiting holds back an owner who
 * asks for one. Within a lane (the limiter still orders lanes and ages them), the next permit
 * goes to the owner with the fewest permits in use, and within that owner to the job with the
 * fewest in use; ties go round-robin (to the one served longest ago, so an owner or job just
 * served goes to the back of the round), and each job's own calls are served first come, first
 * served.
 *
 * Counting permits in use rather than grants is what makes a newcomer's first call go next: an
 * owner holding every permit has more in use than one holding none, however long its calls
 * have waited. Calls that name no owner or job share one (`''`), so a limiter used without
 * them serves each lane first come, first served.
 */

/** Who a waiting call is for. */
export interface FairKey {
  /** The job's owner (the tenant whose share is kept). */
  readonly owner: string;
  /** The job, within its owner. */
  readonly job: string;
}

/** A waiting call: who it is for, and when it must be served for its lane's aging. */
export interface FairWaiter extends FairKey {
  readonly deadline: number;
}

/** A key's share: permits in use, and the order of its last grant (0: none yet). */
interface Share {
  inUse: number;
  last: number;
}

/** Permits in use per owner and per job of an owner, across all the lanes of one limiter. */
export class FairShares {
  // Only keys with a permit in use are kept, so the map is never larger than the limit.
  private readonly owners = new Map<string, Share & { readonly jobs: Map<string, Share> }>();
  private sequence = 0;

  /** Permits the owner holds. */
  ownerInUse(owner: string): number {
    return this.owners.get(owner)?.inUse ?? 0;
  }

  /** Permits the job holds. */
  jobInUse(key: FairKey): number {
    return this.owners.get(key.owner)?.jobs.get(key.job)?.inUse ?? 0;
  }

  /** When the owner was last granted a permit it still holds (0: it holds none). */
  ownerLast(owner: string): number {
    return this.owners.get(owner)?.last ?? 0;
  }

  /** When the job was last granted a permit it still holds (0: it holds none). */
  jobLast(key: FairKey): number {
    return this.owners.get(key.owner)?.jobs.get(key.job)?.last ?? 0;
  }

  /** The next number in the order of grants. */
  next(): number {
    this.sequence++;
    return this.sequence;
  }

  /** A permit was granted to `key`. */
  took(key: FairKey): void {
    const at = this.next();
    let owner = this.owners.get(key.owner);
    if (!owner) {
      owner = { inUse: 0, last: 0, jobs: new Map() };
      this.owners.set(key.owner, owner);
    }
    owner.inUse++;
    owner.last = at;
    const job = owner.jobs.get(key.job) ?? { inUse: 0, last: 0 };
    job.inUse++;
    job.last = at;
    owner.jobs.set(key.job, job);
  }

  /** A permit of `key` was released. */
  gaveBack(key: FairKey): void {
    const owner = this.owners.get(key.owner);
    const job = owner?.jobs.get(key.job);
    if (!owner || !job) return;
    job.inUse--;
    if (job.inUse <= 0) owner.jobs.delete(key.job);
    owner.inUse--;
    if (owner.inUse <= 0) this.owners.delete(key.owner);
  }
}

/** Waiters of one job, and when the job was last served from this queue or granted a permit. */
interface JobLine<T> {
  served: number;
  readonly waiters: T[];
}

/** One owner's jobs with waiters, and when the owner was last served. */
interface OwnerLine<T> {
  served: number;
  readonly jobs: Map<string, JobLine<T>>;
}

/**
 * The key among `lines` with the fewest permits in use; on a tie, the one served longest ago,
 * then the one that came first.
 */
function fairest<L extends { served: number }>(
  lines: ReadonlyMap<string, L>,
  inUse: (key: string) => number,
): string | undefined {
  let best: string | undefined;
  let bestUse = Number.POSITIVE_INFINITY;
  let bestServed = Number.POSITIVE_INFINITY;
  for (const [key, line] of lines) {
    const use = inUse(key);
    if (use < bestUse || (use === bestUse && line.served < bestServed)) {
      best = key;
      bestUse = use;
      bestServed = line.served;
    }
  }
  return best;
}

/** One lane's waiting calls, served fairly between owners and their jobs (see the module comment). */
export class FairQueue<T extends FairWaiter> {
  private readonly owners = new Map<string, OwnerLine<T>>();
  private count = 0;

  constructor(private readonly shares: FairShares) {}

  /** Calls waiting in this lane. */
  get length(): number {
    return this.count;
  }

  push(waiter: T): void {
    let owner = this.owners.get(waiter.owner);
    if (!owner) {
      // An owner (or job) new to the queue was last served when it was last granted a permit
      // it still holds: a call granted at once, with nobody waiting, counts as its turn.
      owner = { served: this.shares.ownerLast(waiter.owner), jobs: new Map() };
      this.owners.set(waiter.owner, owner);
    }
    let job = owner.jobs.get(waiter.job);
    if (!job) {
      job = { served: this.shares.jobLast(waiter), waiters: [] };
      owner.jobs.set(waiter.job, job);
    }
    job.waiters.push(waiter);
    this.count++;
  }

  /** Withdraws a waiter (its request was aborted); false when it was not waiting here. */
  remove(waiter: T): boolean {
    const owner = this.owners.get(waiter.owner);
    const job = owner?.jobs.get(waiter.job);
    const at = job?.waiters.indexOf(waiter) ?? -1;
    if (!owner || !job || at < 0) return false;
    job.waiters.splice(at, 1);
    this.count--;
    this.forgetEmpty(waiter);
    return true;
  }

  /** The waiter this lane serves next, left in place. */
  peek(): T | undefined {
    const owner = fairest(this.owners, (o) => this.shares.ownerInUse(o));
    const jobs = owner === undefined ? undefined : this.owners.get(owner)?.jobs;
    if (owner === undefined || !jobs) return undefined;
    const job = fairest(jobs, (j) => this.shares.jobInUse({ owner, job: j }));
    return job === undefined ? undefined : jobs.get(job)?.waiters[0];
  }

  /** Takes the waiter {@link peek} names; its owner and its job go to the back of the round. */
  shift(): T | undefined {
    const next = this.peek();
    const owner = next && this.owners.get(next.owner);
    const job = next && owner?.jobs.get(next.job);
    if (!next || !owner || !job) return undefined;
    job.waiters.shift();
    this.count--;
    const at = this.shares.next();
    owner.served = at;
    job.served = at;
    this.forgetEmpty(next);
    return next;
  }

  /**
   * The earliest deadline of any waiter here: the lane's claim against the other lanes, so a
   * lane's place under aging is that of its oldest call, whichever call fairness serves.
   */
  earliestDeadline(): number | undefined {
    let earliest: number | undefined;
    for (const owner of this.owners.values()) {
      for (const job of owner.jobs.values()) {
        const first = job.waiters[0];
        if (first && (earliest === undefined || first.deadline < earliest)) earliest = first.deadline;
      }
    }
    return earliest;
  }

  /** Drops the lines of a key left with no waiter, so the maps hold only what waits. */
  private forgetEmpty(key: FairKey): void {
    const owner = this.owners.get(key.owner);
    if (owner?.jobs.get(key.job)?.waiters.length === 0) owner.jobs.delete(key.job);
    if (owner?.jobs.size === 0) this.owners.delete(key.owner);
  }
}
