/** api-routes.ts: every route of the status API, as the CLI, the app and the add-in send it. */
import { describe, expect, it } from 'vitest';
import { StatusApiRoutes } from '../../../lambdas/app/api-routes.js';

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly query?: Record<string, string>;
}

/** The routes over a call that records what it would send. */
class Recording extends StatusApiRoutes {
  readonly sent: Sent[] = [];
  protected call<T>(method: 'GET' | 'POST', path: string, body?: unknown, query?: Record<string, string>) {
    this.sent.push({ method, path, ...(body !== undefined ? { body } : {}), ...(query ? { query } : {}) });
    return Promise.resolve({} as T);
  }
}

describe('StatusApiRoutes', () => {
  it('sends each route to its method and path, ids escaped, bodies and queries as given', async () => {
    const api = new Recording();
    const id = 'j-1/2';
    await api.submit({ filename: 'a.txt' });
    await api.quote({ filename: 'a.txt', document: 'eA==' } as never);
    await api.status(id);
    await api.cancel(id);
    await api.pause(id);
    await api.resume(id);
    await api.act(id, 'pause');
    await api.report(id);
    await api.findings(id);
    await api.liveFindings(id, '');
    await api.jobs();
    await api.jobs({ after: 'v1.x', limit: 5, awaiting: 'approval' });
    await api.decide(id, { decisions: [] } as never);
    await api.decideRedlines(id, { decisions: [] } as never);
    await api.playbooks();
    await api.playbook('nda@2');
    await api.putPlaybook({ source: 'name: x' } as never);
    const e = 'jobs/j-1%2F2';
    expect(api.sent).toEqual([
      { method: 'POST', path: 'jobs', body: { filename: 'a.txt' } },
      { method: 'POST', path: 'quote', body: { filename: 'a.txt', document: 'eA==' } },
      { method: 'GET', path: e },
      { method: 'POST', path: `${e}/cancel` },
      { method: 'POST', path: `${e}/pause` },
      { method: 'POST', path: `${e}/resume` },
      { method: 'POST', path: `${e}/pause` },
      { method: 'GET', path: `${e}/report` },
      { method: 'GET', path: `${e}/findings` },
      { method: 'GET', path: `${e}/findings`, query: { after: '' } },
      { method: 'GET', path: 'jobs', query: {} },
      { method: 'GET', path: 'jobs', query: { after: 'v1.x', limit: '5', awaiting: 'approval' } },
      { method: 'POST', path: `${e}/decisions`, body: { decisions: [] } },
      { method: 'POST', path: `${e}/redlines`, body: { decisions: [] } },
      { method: 'GET', path: 'playbooks' },
      { method: 'GET', path: 'playbooks/nda%402' },
      { method: 'POST', path: 'playbooks', body: { source: 'name: x' } },
    ]);
  });
});
