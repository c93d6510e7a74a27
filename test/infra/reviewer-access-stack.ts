/**
 * The ClauseReviewStack the reviewer-access and app-hosting tests read back (an administrator
 * role and an Office tenant named), synthesized once per worker: unit files share a worker's
 * modules, and the tests only read it. With readers of its template: a value as text, the
 * resources of a type, and every statement a role is allowed.
 */
import { readFileSync, rmSync } from 'node:fs';
import { App, CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { expect } from 'vitest';
import { ClauseReviewStack } from '../../lib/clause-review-stack.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';

export type Resource = { Type: string; Properties: Record<string, unknown> };

/**
 * A template value as text, each reference written `<Ref:X>` or `<GetAtt:X.Attr>`: what a
 * `Fn::Join` of strings and references reads as once deployed.
 */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (v.Ref) return `<Ref:${v.Ref}>`;
  if (v['Fn::GetAtt']) return `<GetAtt:${v['Fn::GetAtt'].join('.')}>`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(asText).join(v['Fn::Join'][0]);
  throw new Error(`not a string, reference or join: ${JSON.stringify(value)}`);
}
export type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

/** The synthesized stack, its resources and its outputs. */
export interface ReviewerStack {
  readonly stack: ClauseReviewStack;
  readonly resources: Record<string, Resource>;
  readonly outputs: Record<string, { Value: unknown }>;
}

let synthesized: ReviewerStack | undefined;

/** The stack, synthesized on first use; its cloud assembly is removed at once (its template is read). */
export function reviewerStack(): ReviewerStack {
  if (!synthesized) {
    const { context } = JSON.parse(readFileSync(`${PROJECT_ROOT}/cdk.json`, 'utf8')) as {
      context: Record<string, unknown>;
    };
    // No handler is bundled: these tests read resources and policies, not code.
    const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    const stack = new ClauseReviewStack(app, 'ClauseReview', {
      stackName: 'clause-review',
      administrators: ['arn:aws:iam::123456789012:role/Ops'],
      officeTenants: ['contoso'],
    });
    const json = Template.fromStack(stack).toJSON();
    rmSync(app.outdir, { recursive: true, force: true });
    synthesized = {
      stack,
      resources: json.Resources as Record<string, Resource>,
      outputs: json.Outputs as Record<string, { Value: unknown }>,
    };
  }
  return synthesized;
}

/** A construct's logical id in its stack's template. */
export const idOf = (c: IConstruct) =>
  Stack.of(c).getLogicalId(c instanceof CfnElement ? c : (c.node.defaultChild as CfnElement));
/** The stack's resources of a type, by logical id. */
export const ofType = (type: string) =>
  Object.entries(reviewerStack().resources).filter(([, r]) => r.Type === type);
/** The stack's one resource of a type. */
export function only(type: string): Resource {
  const found = ofType(type);
  expect(
    found.map(([id]) => id),
    type,
  ).toHaveLength(1);
  return (found[0] as [string, Resource])[1];
}

/** Every statement of every policy attached to a role (inline or managed), by role logical id. */
export function statementsOfRole(roleId: string): Statement[] {
  const { resources } = reviewerStack();
  const attached = Object.entries(resources).filter(([, r]) => {
    if (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') {
      const roles = (r.Properties.Roles ?? []) as { Ref?: string }[];
      return roles.some((x) => x.Ref === roleId);
    }
    return false;
  });
  const inline = (
    (resources[roleId]?.Properties.Policies ?? []) as { PolicyDocument: { Statement: Statement[] } }[]
  ).flatMap((p) => p.PolicyDocument.Statement);
  const managedArns = (resources[roleId]?.Properties.ManagedPolicyArns ?? []) as unknown[];
  expect(managedArns.filter((a) => typeof a !== 'object' || !('Ref' in (a as object)))).toEqual([]);
  return [
    ...inline,
    ...attached.flatMap(([, r]) => (r.Properties.PolicyDocument as { Statement: Statement[] }).Statement),
  ];
}
