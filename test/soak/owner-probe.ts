/**
 * The soak's owner probe: once the run is over, every job is asked for through the status API
 * as a stranger (no owner, no administrator) and as an administrator, on its status, report
 * and findings, as they happen (`?after=`) included.
 */
import { ApiClient, isApiRequestError } from '../../bin/client/api-client.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { type LocalApi, startPipelineApi } from '../../localstack/runtime/local-api.js';
import type { OwnerAnswer } from './owner-checks.js';
import type { Rig } from './rig.js';

const STRANGER = { accessKeyId: 'AKIDSOAKSTRANGER', secretAccessKey: 'stranger-secret' };

/** The status API on the soak's stack, with the emulator key as administrator and a stranger's key. */
export interface OwnerProbe {
  answers(jobId: string): Promise<OwnerAnswer[]>;
  close(): Promise<void>;
}

async function statusOf(run: () => Promise<unknown>): Promise<number> {
  try {
    await run();
    return 200;
  } catch (error) {
    if (isApiRequestError(error)) return error.status;
    throw error;
  }
}

/** Every page of a job's findings as they happen, as `client` reads them: the clauses, or the refusal. */
async function readAllFindings(
  client: ApiClient,
  jobId: string,
): Promise<{ status: number; clauses: number }> {
  let clauses = 0;
  let cursor = '';
  const status = await statusOf(async () => {
    for (let pages = 0; pages < 10_000; pages++) {
      const view = await client.liveFindings(jobId, cursor);
      clauses += view.clauses.length;
      cursor = view.cursor;
      if (!view.more) return;
    }
  });
  return { status, clauses };
}

export async function startOwnerProbe(rig: Rig): Promise<OwnerProbe> {
  // Every job is read by two callers one after another, hundreds of requests in a minute: the
  // stage's throttle and each caller's budgets are the deployed API's concern (route-limits and
  // local-api-gateway tests), so here they are set out of the probe's way.
  const unhurried = { burst: 10_000, perMinute: 60_000 };
  const api: LocalApi = await startPipelineApi({
    awsEndpoint: rig.stack.awsEndpoint,
    db: rig.pipeline.clients.db,
    resources: rig.resources,
    credentials: Object.fromEntries(
      [EMULATOR_CREDENTIALS, STRANGER].map((c) => [c.accessKeyId, c.secretAccessKey]),
    ),
    callerBudgets: { status: unhurried, report: unhurried, findings: unhurried },
    throttle: { rateLimit: 10_000, burstLimit: 10_000 },
  });
  const admin = new ApiClient({ url: api.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS });
  const stranger = new ApiClient({ url: api.url, region: LOCAL_REGION, credentials: STRANGER });
  return {
    async answers(jobId) {
      const out: OwnerAnswer[] = [];
      for (const [as, client] of [
        ['stranger', stranger],
        ['administrator', admin],
      ] as const) {
        out.push({ route: 'GET /jobs/{id}', as, status: await statusOf(() => client.status(jobId)) });
        out.push({ route: 'GET /jobs/{id}/report', as, status: await statusOf(() => client.report(jobId)) });
        const findings = await readAllFindings(client, jobId);
        out.push({
          route: 'GET /jobs/{id}/findings?after=',
          as,
          status: findings.status,
          ...(findings.status === 200 ? { clauses: findings.clauses } : {}),
        });
      }
      return out;
    },
    close: () => api.close(),
  };
}
