/**
 * `clause-review doctor`'s second half: one real request per model, of exactly the shape the
 * workers send (lambdas/core/model-shape.ts), and what each answer means for the deployment:
 * the endpoint that served it, or the refusal with its fix named.
 */
import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { PanelModels } from '../../lambdas/core/analysts/index.js';
import type { ModelVerdict } from '../../lambdas/core/model-lifecycle.js';
import { probeShape, type ShapeVerdict, shapeFix } from '../../lambdas/core/model-shape.js';
import type { CliIo } from './cli-error.js';

const MARK: Readonly<Record<ShapeVerdict['state'], string>> = {
  served: 'ok  ',
  refused: 'FAIL',
  unchecked: 'WARN',
};

/**
 * Sends the workers' request to every model the control plane found callable (a model it
 * refused is not asked again), one at a time, and returns what each answered.
 */
export async function probeModels(
  bedrock: BedrockRuntimeClient,
  lifecycle: readonly ModelVerdict[],
): Promise<ShapeVerdict[]> {
  const out: ShapeVerdict[] = [];
  for (const v of lifecycle) {
    if (v.level === 'error') continue;
    out.push(await probeShape(bedrock, v.modelId));
  }
  return out;
}

/**
 * Prints one line per model (the shape sent, and the endpoint that served it or the refusal and
 * its fix) and a closing line; returns the exit status: 1 when any model refused the request.
 */
export function printShapes(
  verdicts: readonly ShapeVerdict[],
  roles: ReadonlyMap<string, string>,
  panel: PanelModels,
  io: CliIo,
): number {
  for (const v of verdicts) {
    const who = `${v.modelId} (${roles.get(v.modelId) ?? 'checked'})`;
    const sent = `sent ${v.shape}`;
    if (v.state === 'served') {
      io.out(
        `${MARK.served} ${who}: ${sent}; served by ${v.endpoint ?? 'Bedrock'} (stop reason ${v.stopReason ?? 'none'})`,
      );
    } else if (v.state === 'refused') {
      io.out(
        `${MARK.refused} ${who}: ${sent} to ${v.endpoint ?? 'Bedrock'}; refused: ${v.error?.name}: ${v.error?.message.replace(/\.+$/, '')}. ` +
          `Every call of every job would be refused the same way. Fix: ${shapeFix(v.modelId, verdicts, panel)}`,
      );
    } else {
      io.out(
        `${MARK.unchecked} ${who}: ${sent} to ${v.endpoint ?? 'Bedrock'}; no answer either way (${v.error?.name}: ${v.error?.message}); run doctor again`,
      );
    }
  }
  const refused = verdicts.filter((v) => v.state === 'refused').length;
  io.out(
    refused > 0
      ? `${refused} model(s) refused the request the workers send: fix that before any job is accepted (the stack's first intake checks the same, and rejects jobs with those models).`
      : `every model checked served the request the workers send`,
  );
  return refused > 0 ? 1 : 0;
}
