import type { AppApi } from '../api.js';
import type { AppConfig } from '../config.js';

/** What every view gets: the API, the configuration, and the jobs this page has submitted. */
export interface ViewContext {
  readonly api: AppApi;
  readonly config: AppConfig;
  /** Jobs submitted from this page, newest first: what the list shows where GET /jobs is not served. */
  readonly submitted: string[];
  /** Goes to a route (`#/jobs/j-…`). */
  readonly go: (hash: string) => void;
}

/** A mounted view: stop() ends its polling. */
export interface View {
  readonly element: HTMLElement;
  stop(): void;
}

/** Statuses in which a job still changes on its own. */
export const MOVING = new Set(['queued', 'intake', 'running']);
