/**
 * The deploy rehearsal's template transform: what LocalStack cannot create comes out of the
 * synthesized template, by name, and every reference to it is replaced by a value that says so.
 * Nothing is dropped without a line in the result.
 *
 * Pure functions over the CloudFormation template JSON; no AWS call.
 */
import { RehearsalError } from './coverage.js';

/** A CloudFormation template, as synthesized. */
export interface Template {
  Resources: Record<string, TemplateResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string; Export?: unknown }>;
  Parameters?: Record<string, unknown>;
  Rules?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  [key: string]: unknown;
}

/** One resource taken out of the template, and why. */
export interface RemovedResource {
  readonly logicalId: string;
  readonly type: string;
  readonly reason: string;
}

/** A reference to a removed resource, and what stands in for it. */
export interface Replacement {
  /** The resource (logical id) or output (`Outputs.<key>`) holding the reference. */
  readonly in: string;
  /** The removed resource it named. */
  readonly target: string;
  /** `Ref`, `Fn::GetAtt <attr>`, or `Fn::Sub ${…}`. */
  readonly how: string;
}

/**
 * A removed custom resource whose effect the rehearsal applies itself: its properties, with
 * each intrinsic replaced by `{ [OUTPUT_MARKER]: key }`, the key of an output added to the
 * template that CloudFormation resolves to the value the handler would have been given.
 */
export interface DeferredResource {
  readonly logicalId: string;
  readonly type: string;
  readonly properties: Record<string, unknown>;
}

export const OUTPUT_MARKER = 'rehearsal:output';

/** Prefix of the placeholder values that stand in for references to removed resources. */
export const NOT_CREATED = 'rehearsal-not-created-';

/** Resource types that only attach something to another resource, and cannot exist without it. */
const ATTACHMENTS = new Set([
  'AWS::Lambda::Permission',
  'AWS::Lambda::EventSourceMapping',
  'AWS::Lambda::EventInvokeConfig',
  'AWS::Lambda::Url',
  'AWS::Lambda::Version',
  'AWS::Lambda::Alias',
]);

/** What the rehearsal does with a removed custom resource of a type it knows. */
export const APPLIED_BY_REHEARSAL = new Set(['Custom::S3BucketNotifications']);

export interface TransformResult {
  readonly template: Template;
  readonly removed: readonly RemovedResource[];
  readonly replacements: readonly Replacement[];
  readonly deferred: readonly DeferredResource[];
}

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every logical id a value references (Ref, Fn::GetAtt, Fn::Sub). */
export function referencesIn(value: Json, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) referencesIn(v, found);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'Ref' && typeof v === 'string') found.add(v);
      else if (k === 'Fn::GetAtt') {
        const target = Array.isArray(v) ? v[0] : typeof v === 'string' ? v.split('.')[0] : undefined;
        if (typeof target === 'string') found.add(target);
      } else if (k === 'Fn::Sub') {
        const text = Array.isArray(v) ? v[0] : v;
        if (typeof text === 'string') for (const m of text.matchAll(/\$\{([^}!.]+)/g)) found.add(m[1] ?? '');
        if (Array.isArray(v)) referencesIn(v[1], found);
      } else referencesIn(v, found);
    }
  }
  return found;
}

/** The value that stands in for `Fn::GetAtt [id, attr]` of a removed resource of `type`. */
function placeholderAttr(id: string, type: string, attr: string): Json {
  if (attr !== 'Arn') return `${NOT_CREATED}${id}.${attr}`;
  const [, service = 'unknown', kind = 'resource'] = type.split('::');
  const svc = service.toLowerCase();
  const separator = svc === 'lambda' ? ':' : '/';
  return {
    'Fn::Sub': `arn:\${AWS::Partition}:${svc}:\${AWS::Region}:\${AWS::AccountId}:${kind.toLowerCase()}${separator}${NOT_CREATED}${id}`,
  };
}

/** `value` with every reference to a removed resource replaced, each one recorded. */
function replaceReferences(
  value: Json,
  removed: ReadonlyMap<string, RemovedResource>,
  where: string,
  record: (r: Replacement) => void,
): Json {
  if (Array.isArray(value)) return value.map((v) => replaceReferences(v, removed, where, record));
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'Ref' && typeof value.Ref === 'string' && removed.has(value.Ref)) {
    record({ in: where, target: value.Ref, how: 'Ref' });
    return `${NOT_CREATED}${value.Ref}`;
  }
  if (keys.length === 1 && keys[0] === 'Fn::GetAtt') {
    const raw = value['Fn::GetAtt'];
    const [id, attr] = Array.isArray(raw) ? raw : String(raw).split('.');
    const gone = typeof id === 'string' ? removed.get(id) : undefined;
    if (gone) {
      record({ in: where, target: gone.logicalId, how: `Fn::GetAtt ${String(attr)}` });
      return placeholderAttr(gone.logicalId, gone.type, String(attr));
    }
  }
  if (keys.length === 1 && keys[0] === 'Fn::Sub') {
    const raw = value['Fn::Sub'];
    const text = Array.isArray(raw) ? raw[0] : raw;
    if (typeof text === 'string') {
      const replaced = text.replace(/\$\{([^}!.]+)(?:\.([^}]+))?\}/g, (whole, id: string, attr?: string) => {
        if (!removed.has(id)) return whole;
        record({ in: where, target: id, how: `Fn::Sub \${${id}${attr ? `.${attr}` : ''}}` });
        return `${NOT_CREATED}${id}${attr ? `.${attr}` : ''}`;
      });
      const vars = Array.isArray(raw) ? replaceReferences(raw[1], removed, where, record) : undefined;
      return { 'Fn::Sub': Array.isArray(raw) ? [replaced, vars] : replaced };
    }
  }
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, replaceReferences(v, removed, where, record)]),
  );
}

/**
 * AWS's URL suffix in the partition the template is for. LocalStack answers `AWS::URLSuffix`
 * with its own host and port, which makes a host name no URL parser takes; CloudFormation's is
 * amazonaws.com in the aws partition
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/pseudo-parameter-reference.html).
 */
export const URL_SUFFIX = 'amazonaws.com';

function fixUrlSuffix(value: Json, where: string, record: (r: Replacement) => void): Json {
  if (Array.isArray(value)) return value.map((v) => fixUrlSuffix(v, where, record));
  if (!isObject(value)) return value;
  if (Object.keys(value).length === 1 && value.Ref === 'AWS::URLSuffix') {
    record({
      in: where,
      target: 'AWS::URLSuffix',
      how: `Ref (LocalStack answers its own address; ${URL_SUFFIX})`,
    });
    return URL_SUFFIX;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fixUrlSuffix(v, where, record)]));
}

/** Properties with every intrinsic turned into a marker naming a new output that resolves it. */
function deferIntrinsics(value: Json, outputs: Record<string, { Value: Json }>, prefix: string): Json {
  if (Array.isArray(value)) return value.map((v) => deferIntrinsics(v, outputs, prefix));
  if (!isObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]?.startsWith('Fn::'))) {
    const key = `${prefix}${Object.keys(outputs).filter((k) => k.startsWith(prefix)).length}`;
    outputs[key] = { Value: value };
    return { [OUTPUT_MARKER]: key };
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deferIntrinsics(v, outputs, prefix)]));
}

/**
 * Takes out every resource `cannotCreate` gives a reason for, then every attachment (Lambda
 * permissions, event source mappings, …) to a removed resource; replaces each reference to a
 * removed resource in what is left (properties, DependsOn, outputs) by a placeholder that names
 * it; and keeps the properties of removed custom resources the rehearsal applies itself.
 */
export function transformTemplate(
  template: Template,
  cannotCreate: (type: string) => string | undefined,
): TransformResult {
  const removed = new Map<string, RemovedResource>();
  for (const [logicalId, r] of Object.entries(template.Resources)) {
    const reason = cannotCreate(r.Type);
    if (reason) removed.set(logicalId, { logicalId, type: r.Type, reason });
  }
  for (const [logicalId, r] of Object.entries(template.Resources)) {
    if (!ATTACHMENTS.has(r.Type) || removed.has(logicalId)) continue;
    const target = [...referencesIn(r.Properties ?? {})].find((id) => removed.has(id));
    if (target) {
      removed.set(logicalId, {
        logicalId,
        type: r.Type,
        reason: `attaches to ${target} (${removed.get(target)?.type}), which is not created`,
      });
    }
  }
  const replacements: Replacement[] = [];
  const record = (r: Replacement) => replacements.push(r);
  const resources: Record<string, TemplateResource> = {};
  for (const [logicalId, r] of Object.entries(template.Resources)) {
    if (removed.has(logicalId)) continue;
    const next = replaceReferences(r, removed, logicalId, record) as TemplateResource;
    if (next.DependsOn !== undefined) {
      const kept = [next.DependsOn].flat().filter((id) => !removed.has(id));
      if (kept.length > 0) next.DependsOn = kept;
      else delete next.DependsOn;
    }
    resources[logicalId] = next;
  }
  const outputs: Record<string, { Value: Json; Description?: string; Export?: unknown }> = {};
  for (const [key, output] of Object.entries(template.Outputs ?? {})) {
    const replaced = replaceReferences(output, removed, `Outputs.${key}`, record) as typeof output;
    outputs[key] = fixUrlSuffix(replaced, `Outputs.${key}`, record) as typeof output;
  }
  const deferred: DeferredResource[] = [];
  for (const r of removed.values()) {
    if (!APPLIED_BY_REHEARSAL.has(r.type)) continue;
    const properties = replaceReferences(
      template.Resources[r.logicalId]?.Properties ?? {},
      removed,
      r.logicalId,
      () => {},
    );
    deferred.push({
      logicalId: r.logicalId,
      type: r.type,
      properties: deferIntrinsics(properties, outputs, `Rehearsal${r.logicalId}`) as Record<string, unknown>,
    });
  }
  return {
    template: { ...template, Resources: resources, Outputs: outputs },
    removed: [...removed.values()],
    replacements,
    deferred,
  };
}

/** `properties` with each output marker replaced by that output's value. */
export function resolveDeferred(value: Json, outputs: Readonly<Record<string, string | undefined>>): Json {
  if (Array.isArray(value)) return value.map((v) => resolveDeferred(v, outputs));
  if (!isObject(value)) return value;
  const marker = value[OUTPUT_MARKER];
  if (typeof marker === 'string') {
    const resolved = outputs[marker];
    if (resolved === undefined) {
      throw new RehearsalError('apply', `the stack has no output ${marker} for a deferred property`);
    }
    return resolved;
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveDeferred(v, outputs)]));
}
