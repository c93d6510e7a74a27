/**
 * What the suites that drive the CLI's API commands and the status API share: the local target
 * a command runs against, captured output, and an API refusal read from a rejected call.
 */
import { type ApiClient, isApiRequestError } from '../../bin/client/api-client.js';
import type { CliIo } from '../../bin/commands/cli-error.js';
import type { Target } from '../../bin/commands/target.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import type { PipelineHarness } from './pipeline.js';

/** A command's target: the harness's stack, reached through `api` (signed with one caller's key). */
export function localTarget(h: PipelineHarness, api: ApiClient): () => Promise<Target> {
  return async () => ({
    kind: 'local',
    name: 'local',
    region: LOCAL_REGION,
    api,
    resources: h.stack.resources,
    clients: { ...h.pipeline.clients, sns: h.stack.clients.sns },
    destroy: () => {},
  });
}

/** Output a command writes, kept line by line. */
export function capture(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, tty: false, out: (l) => stdout.push(l), err: (l) => stderr.push(l) };
}

/** The status API's refusal of a call; throws when the call succeeds or fails otherwise. */
export async function apiRefusal(
  promise: Promise<unknown>,
): Promise<{ status: number; message: string; body: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (isApiRequestError(error)) return { status: error.status, message: error.message, body: error.body };
    throw error;
  }
  throw new Error('expected the API to refuse the request');
}
