import { setTimeout as sleep } from 'node:timers/promises';
import { LocalStackError, LocalStackNotReadyError } from './errors.js';
import { probeService, SERVICE_PROBES } from './localstack-probes.js';

/**
 * LocalStack's `/_localstack/health`: its version and each service's state. The states are
 * LocalStack's `ServiceState` (localstack/services/plugins.py): `available` is enabled but not
 * started (services load lazily, on their first request, unless `EAGER_SERVICE_LOADING`),
 * `starting`, `running`, `error` (its start or check failed), `disabled` (not in `SERVICES`),
 * and `stopping`/`stopped`. https://docs.localstack.cloud/aws/configuration/networking/internal-endpoints/
 */
export interface LocalStackHealth {
  readonly version?: string;
  readonly services?: Readonly<Record<string, string>>;
}

/** How long one service took to answer its first request, and how often it was asked again. */
export interface ServiceReadiness {
  readonly service: string;
  /** From the start of the wait until the service answered and its health said `running`. */
  readonly readyAfterMs: number;
  /** First requests that were not answered (refused, timed out, or an error such as InternalFailure). */
  readonly retries: number;
}

/** What waiting for LocalStack took. */
export interface LocalStackReadiness {
  readonly version: string;
  /** From the start of the wait until every service had answered. */
  readonly tookMs: number;
  /** Health reads until every service was listed enabled. */
  readonly healthPolls: number;
  /** In the order they were asked. */
  readonly services: readonly ServiceReadiness[];
}

/** What {@link waitForLocalStack} waits on. */
export interface ReadinessOptions {
  readonly endpoint: string;
  /** LocalStack's service names; each needs a first request in {@link SERVICE_PROBES}. */
  readonly services: readonly string[];
  readonly timeoutMs: number;
  /** Between two asks of the same thing. @default 250 */
  readonly intervalMs?: number;
  /** Why LocalStack can no longer become ready (its process exited), if so. */
  readonly gone?: () => string | undefined;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<unknown>;
}

const ENABLED = ['available', 'starting', 'running'];

/** Refuses services the launcher cannot wait for: it knows no first request for them. */
export function checkServicesKnown(services: readonly string[]): void {
  const unknown = services.filter((s) => !SERVICE_PROBES[s]);
  if (unknown.length > 0) {
    throw new LocalStackError(
      `no first request is known for LocalStack service(s) ${unknown.map((s) => `'${s}'`).join(', ')}, ` +
        `so the launcher could not tell when they are ready; known: ${Object.keys(SERVICE_PROBES).join(', ')}`,
    );
  }
}

/**
 * Resolves once LocalStack on `endpoint` can serve every service asked for: its health lists
 * each one enabled, then each in turn answers a first real request (200, not LocalStack's
 * `InternalFailure: no handler for operation …`) and its health says `running`. Throws a
 * {@link LocalStackNotReadyError} naming the first service that is not ready by the deadline,
 * with its state and its last answer.
 *
 * One service at a time, because LocalStack's request router gets a service's operations on
 * its first request (`ServiceLoader.require_service`, localstack/aws/handlers/service_plugin.py)
 * and marks the service loaded before they are all in place: a request arriving in between,
 * from another client starting at the same moment, finds no handler. Health says `running`
 * for an eagerly loaded service before any of that has happened.
 */
export async function waitForLocalStack(options: ReadinessOptions): Promise<LocalStackReadiness> {
  checkServicesKnown(options.services);
  const w = new Waiter(options);
  const health = await w.untilEnabled();
  const services: ServiceReadiness[] = [];
  for (const service of options.services) {
    const retries = await w.untilAnswered(service);
    await w.untilRunning(service);
    services.push({ service, readyAfterMs: w.elapsed(), retries });
  }
  return {
    version: health.latest.version ?? 'unknown',
    tookMs: w.elapsed(),
    healthPolls: health.polls,
    services,
  };
}

/** The wait's clock, deadline and last observations. */
class Waiter {
  private readonly now: () => number;
  private readonly started: number;
  private readonly deadline: number;
  private latest: LocalStackHealth | undefined;

  constructor(private readonly o: ReadinessOptions) {
    this.now = o.now ?? Date.now;
    this.started = this.now();
    this.deadline = this.started + o.timeoutMs;
  }

  elapsed(): number {
    return this.now() - this.started;
  }

  /** Until the health answers and lists every service enabled. */
  async untilEnabled(): Promise<{ latest: LocalStackHealth; polls: number }> {
    for (let polls = 1; ; polls++) {
      const health = await this.health();
      const states = health?.services ?? {};
      const waiting = this.o.services.find((s) => !ENABLED.includes(states[s] ?? ''));
      if (health && waiting === undefined) return { latest: health, polls };
      if (waiting !== undefined && states[waiting] === 'disabled') {
        this.fail(waiting, `LocalStack has '${waiting}' disabled: it is not in its SERVICES`);
      }
      await this.pause(
        waiting ?? 'health',
        health ? 'its health does not list it enabled' : 'the health endpoint does not answer',
      );
    }
  }

  /** Until `service` answers its first request; returns the requests that were not answered. */
  async untilAnswered(service: string): Promise<number> {
    for (let retries = 0; ; retries++) {
      const answer = await probeService(this.o.endpoint, service, this.o.fetch);
      if (answer.ok) return retries;
      await this.pause(service, `its first request was not answered (${answer.detail})`);
    }
  }

  /** Until the health says `service` is running. */
  async untilRunning(service: string): Promise<void> {
    while ((await this.health())?.services?.[service] !== 'running') {
      await this.pause(service, 'it answered, but its health does not say running');
    }
  }

  private async health(): Promise<LocalStackHealth | undefined> {
    try {
      const res = await (this.o.fetch ?? fetch)(`${this.o.endpoint}/_localstack/health`, {
        signal: AbortSignal.timeout(2000),
      });
      if (res.ok) this.latest = (await res.json()) as LocalStackHealth;
      else return undefined;
    } catch {
      return undefined;
    }
    return this.latest;
  }

  /** Waits before the next ask, unless LocalStack has gone or the deadline has passed. */
  private async pause(service: string, why: string): Promise<void> {
    const gone = this.o.gone?.();
    if (gone !== undefined) this.fail(service, `LocalStack ${gone}`);
    if (this.now() > this.deadline) {
      this.fail(service, `LocalStack's '${service}' was not ready within ${this.o.timeoutMs} ms: ${why}`);
    }
    await (this.o.sleep ?? sleep)(this.o.intervalMs ?? 250);
  }

  private fail(service: string, message: string): never {
    const state = this.latest?.services?.[service] ?? 'not listed';
    throw new LocalStackNotReadyError(`${message} (its health: ${state}) on ${this.o.endpoint}`, {
      service,
      state,
    });
  }
}
