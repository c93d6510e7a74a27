/**
 * The stack's own day-one check: the first intake sends each configured model the workers'
 * request once (model-shape.ts) and records what Bedrock answered (state/model-shapes.ts); from
 * then on every intake reads the record, and a job whose models refused it is rejected with the
 * fix named, before any of its calls is made and refused in turn.
 */
import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describeShape, probeShape, type ShapeVerdict, shapeFix, shapeProbeRequest } from './model-shape.js';
import { ModelShapes, type ShapeRecord } from './state/model-shapes.js';

/** A model's verdict as the stack recorded it: its answer, and for a refusal its fix. */
export type RecordedShape = Pick<ShapeRecord, 'modelId' | 'state' | 'endpoint' | 'error' | 'fix'>;

/**
 * The checks as a process keeps them: each model's record read once and kept once it says
 * `served` or `refused` (a recorded answer holds until the request's shape changes).
 */
export class ShapeGuard {
  private readonly shapes: ModelShapes;
  private readonly kept = new Map<string, Promise<RecordedShape | undefined>>();

  constructor(
    private readonly bedrock: BedrockRuntimeClient,
    db: DynamoDBDocumentClient,
    tableName: string,
    private readonly panel: { readonly primary: string; readonly fallback: string },
    now: () => number = Date.now,
    private readonly log: (message: string, fields: Record<string, unknown>) => void = () => {},
  ) {
    this.shapes = new ModelShapes(db, tableName, now);
  }

  /** The recorded checks of these models; a model whose check is under way elsewhere has none yet. */
  async check(modelIds: readonly string[]): Promise<RecordedShape[]> {
    const found = await Promise.all(modelIds.map((id) => this.of(id)));
    return found.filter((r): r is RecordedShape => r !== undefined);
  }

  private of(modelId: string): Promise<RecordedShape | undefined> {
    let kept = this.kept.get(modelId);
    if (!kept) {
      kept = this.lookUp(modelId);
      this.kept.set(modelId, kept);
      // Only an answer is kept; no record yet, or a failed read, is asked again next time.
      void kept.then(
        (r) => (r?.state === 'served' || r?.state === 'refused' ? undefined : this.kept.delete(modelId)),
        () => this.kept.delete(modelId),
      );
    }
    return kept;
  }

  private async lookUp(modelId: string): Promise<RecordedShape | undefined> {
    const shape = describeShape(shapeProbeRequest(modelId));
    const recorded = await this.shapes.read(modelId, shape);
    if (recorded && recorded.state !== 'checking' && recorded.state !== 'unchecked') return recorded;
    if (!(await this.shapes.claim(modelId, shape))) return undefined;
    const verdict = await probeShape(this.bedrock, modelId);
    const record = {
      ...recordOf(verdict),
      ...(verdict.state === 'refused' ? { fix: shapeFix(modelId, [verdict], this.panel) } : {}),
    };
    await this.shapes.record({ ...record, shape });
    this.log(verdict.state === 'refused' ? 'model-shape-refused' : 'model-shape-checked', { ...record });
    return record;
  }
}

function recordOf(v: ShapeVerdict): RecordedShape {
  return {
    modelId: v.modelId,
    state: v.state,
    ...(v.endpoint ? { endpoint: v.endpoint } : {}),
    ...(v.error ? { error: v.error } : {}),
  };
}

/**
 * The refusals among recorded checks as one sentence for a rejected job, each with its fix (a
 * model of the panel that served the request, else the flag); undefined when none.
 */
export function shapeRefusal(
  recorded: readonly RecordedShape[],
  panel: { readonly primary: string; readonly fallback: string },
): string | undefined {
  const refused = recorded.filter((r) => r.state === 'refused');
  if (refused.length === 0) return undefined;
  return refused
    .map(
      (r) =>
        `'${r.modelId}' refused the request the workers send (${r.error?.name}: ${r.error?.message}), so every call of this job would be refused: ${shapeFix(r.modelId, recorded, panel)}`,
    )
    .join('; ');
}
