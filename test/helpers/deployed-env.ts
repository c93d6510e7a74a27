import { byRole } from '../../lambdas/core/lanes-and-limits.js';

/** `QUEUE_URLS` as a test environment holds it: one URL per queue role under `base`. */
export function queueUrlsVariable(base = 'https://sqs.us-east-1.amazonaws.com/1'): string {
  return JSON.stringify(byRole((role) => `${base}/${role}`));
}

/**
 * A synthesized function's environment as CloudFormation would deploy it: every reference
 * becomes a URL-shaped value naming what it refers to (queue URLs, ARNs and names all parse
 * as strings), and `Fn::Join` (how `Stack.toJsonString` writes the JSON variables) joins them.
 */
export function deployedEnvironment(vars: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(vars).map(([key, value]) => [key, resolve(value, key)]));
}

function resolve(value: unknown, name: string): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (join) return join[1].map((part) => resolve(part, name)).join(join[0]);
    const ref = (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt'?: string[] })['Fn::GetAtt']?.[0];
    if (ref) return `https://sqs.eu-west-1.amazonaws.com/123456789012/${ref}`;
  }
  return `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}`;
}
