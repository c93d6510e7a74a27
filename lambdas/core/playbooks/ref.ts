/**
 * How a job, an upload's metadata and the CLI name a playbook: `NAME` (its latest version) or
 * `NAME@VERSION`; and what a job records once the name is resolved: name, version and hash.
 */
import type { JobPlaybook, PlaybookRef } from '../records/job-terms.js';
import { PlaybookRefError } from './errors.js';

export type { JobPlaybook, PlaybookRef };

/** A playbook as a submission names it: a version, or none for the latest. */
export interface PlaybookRequest {
  readonly name: string;
  readonly version?: number;
}

const REF = /^([a-z0-9]+(?:-[a-z0-9]+)*)(?:@([1-9][0-9]{0,8}))?$/;

/**
 * Reads `NAME` or `NAME@VERSION`.
 * @throws PlaybookRefError naming what was given
 * @example parsePlaybookRequest('default@2') // { name: 'default', version: 2 }
 */
export function parsePlaybookRequest(text: string): PlaybookRequest {
  const m = REF.exec(text.trim());
  if (!m || (m[1] ?? '').length > 64) throw new PlaybookRefError(text);
  return { name: m[1] ?? '', ...(m[2] ? { version: Number(m[2]) } : {}) };
}

/** `NAME` or `NAME@VERSION`. */
export function playbookRequestText(request: PlaybookRequest): string {
  return request.version === undefined ? request.name : `${request.name}@${request.version}`;
}
