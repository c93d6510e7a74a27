/**
 * What the tests of the synthesized ClauseReviewStack (stack*.test.ts) share: the stack, its app
 * and template, synthesized for each file (bundling the real handlers with esbuild), and helpers
 * that read the template back.
 */
import { readFileSync, rmSync } from 'node:fs';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll } from 'vitest';
import { ClauseReviewStack } from '../../lib/clause-review-stack.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import type { QueueRole } from '../../lib/topology.js';

export type Resource = { Type: string; Properties: Record<string, unknown> };
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

export let app: App;
export let stack: ClauseReviewStack;
export let template: Template;
let resources: Record<string, Resource>;

/**
 * Synthesizes the stack once before the calling file's tests, which all read that template, and
 * removes its cloud assembly after them; `bundle: false` builds no handler (a file that reads
 * resources and policies only). Call it once at a test file's top level.
 */
export function synthesizeStack(options: { readonly bundle?: boolean } = {}): void {
  beforeAll(() => {
    // The same feature flags `cdk synth` uses, so the tests check what would be deployed.
    const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as { context: object };
    // Without bundling no handler is built: enough for tests that read resources and policies.
    app = new App({
      context: options.bundle === false ? { ...context, 'aws:cdk:bundling-stacks': [] } : context,
    });
    stack = new ClauseReviewStack(app, 'ClauseReview', { stackName: 'clause-review' });
    template = Template.fromStack(stack);
    resources = template.toJSON().Resources as Record<string, Resource>;
  });

  afterAll(() => {
    // The cloud assembly (bundles, staged Docker context) goes to a fresh temporary directory.
    if (app) rmSync(app.outdir, { recursive: true, force: true });
  });
}

/** The logical id of a construct's CloudFormation resource. */
export function idOf(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

export function props(logicalId: string): Record<string, unknown> {
  const r = resources[logicalId];
  if (!r) throw new Error(`no resource ${logicalId} in the template`);
  return r.Properties;
}

export function ofType(type: string): [string, Resource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

/** Renders Ref / GetAtt / Join as `${…}` text, so ARNs and names can be compared as strings. */
export function render(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if ('Ref' in o) return `\${${String(o.Ref)}}`;
    if ('Fn::GetAtt' in o) return `\${${(o['Fn::GetAtt'] as string[]).join('.')}}`;
    if ('Fn::Join' in o) {
      const [separator, parts] = o['Fn::Join'] as [string, unknown[]];
      return parts.map(render).join(separator);
    }
  }
  throw new Error(`cannot render ${JSON.stringify(value)}`);
}

export const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

export function statementsOf(policyLogicalId: string): Statement[] {
  return (props(policyLogicalId).PolicyDocument as { Statement: Statement[] }).Statement;
}

/** Every IAM policy in the template with the roles it is attached to. */
export function policies(): { id: string; roles: string[]; statements: Statement[] }[] {
  return ofType('AWS::IAM::Policy').map(([id, r]) => ({
    id,
    roles: ((r.Properties.Roles as unknown[]) ?? []).map(render),
    statements: statementsOf(id),
  }));
}

export function statementsOfRole(roleLogicalId: string): Statement[] {
  return policies()
    .filter((p) => p.roles.includes(`\${${roleLogicalId}}`))
    .flatMap((p) => p.statements);
}

export const queueId = (role: QueueRole) => idOf(stack.workQueues.queues[role]);
export const dlqId = (role: QueueRole) => idOf(stack.workQueues.deadLetterQueues[role]);
