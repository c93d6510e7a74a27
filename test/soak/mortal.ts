/**
 * Invocations that die: the pipeline's own SDK clients wrapped so that, past a chosen request, no
 * request of the invocation reaches AWS again, as when a Lambda times out or its process is
 * killed between two requests. A write that was sent still happens; its answer is lost with the
 * invocation. The point of death is counted in requests, or from a landmark of admission control
 * (a slot taken or given back, a job queued, cancelled or paused) so that deaths land on those
 * paths and not only wherever a random count falls.
 */
import { slotWritesOf, statusChangesOf } from './slot-trail.js';

/** A write an invocation may die just after (or a few requests after). */
export type Landmark = 'slot-take' | 'slot-release' | 'queued' | 'cancelled' | 'paused';

/** Where an invocation dies. */
export type DeathPoint =
  /** The `n`th request is its last. */
  | { readonly afterRequests: number }
  /** `later` requests after the first request that makes `landmark` are its last (0: that request itself). */
  | { readonly landmark: Landmark; readonly later: number };

/** What every request of an invocation that has died throws. */
export class InvocationDiedError extends Error {
  override readonly name = 'InvocationDiedError';
  constructor(readonly point: DeathPoint) {
    super(`the invocation died (${describeDeath(point)})`);
  }
}

export const isInvocationDied = (error: unknown): error is InvocationDiedError =>
  error instanceof InvocationDiedError;

/** A death point in words, for the run's tallies. */
export function describeDeath(point: DeathPoint): string {
  return 'landmark' in point
    ? `${point.later} request(s) after ${point.landmark}`
    : `after ${point.afterRequests} request(s)`;
}

/** The landmarks one request makes, read from its input as the document client sends it. */
function landmarksOf(input: unknown): Landmark[] {
  const out: Landmark[] = [];
  for (const w of slotWritesOf(input)) {
    if (w.kind === 'take') out.push('slot-take');
    if (w.kind === 'release') out.push('slot-release');
  }
  for (const { to } of statusChangesOf(input))
    if (to === 'queued' || to === 'cancelled' || to === 'paused') out.push(to);
  return out;
}

/** One invocation's life: how many requests it has made, and whether it has died. */
export class Life {
  private requests = 0;
  private left: number | undefined;
  private dead = false;

  constructor(readonly point: DeathPoint) {}

  get died(): boolean {
    return this.dead;
  }

  /** Before a request: an invocation that has died sends nothing. */
  before(): void {
    if (this.dead) throw new InvocationDiedError(this.point);
  }

  /** After a request was answered: the invocation may die here, losing the answer. */
  after(input: unknown): void {
    this.requests++;
    const p = this.point;
    if ('afterRequests' in p) {
      if (this.requests >= p.afterRequests) this.die();
      return;
    }
    if (this.left !== undefined) {
      this.left--;
    } else if (landmarksOf(input).includes(p.landmark)) {
      this.left = p.later;
    }
    if (this.left === 0) this.die();
  }

  private die(): never {
    this.dead = true;
    throw new InvocationDiedError(this.point);
  }
}

type Sender = { send(command: { readonly input?: unknown }, ...rest: unknown[]): Promise<unknown> };

/** `client` as one invocation uses it: every request counted against `life`, none after its death. */
export function mortal<T extends object>(client: T, life: Life): T {
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== 'send') return Reflect.get(target, prop, receiver);
      return async (command: { readonly input?: unknown }, ...rest: unknown[]) => {
        life.before();
        const answer = await (target as unknown as Sender).send(command, ...rest);
        life.after(command.input);
        return answer;
      };
    },
  });
}

/** The clients of one invocation that dies at `point`. */
export function mortalClients<C extends { readonly db: object; readonly s3: object; readonly sqs: object }>(
  clients: C,
  point: DeathPoint,
): { readonly clients: C; readonly life: Life } {
  const life = new Life(point);
  return {
    clients: {
      ...clients,
      db: mortal(clients.db, life),
      s3: mortal(clients.s3, life),
      sqs: mortal(clients.sqs, life),
    },
    life,
  };
}
