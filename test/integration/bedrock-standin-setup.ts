/**
 * What the Bedrock stand-in tests share: a contract analyst's Converse request (clauses, a tool
 * schema in the analysts' shape and the answer it allows), and the stand-in itself, started once
 * per file (seed 7, the keyword heuristic) with an SDK client over HTTP/2 (the default handler)
 * and one over HTTP/1.1 (NodeHttpHandler), its plan and books cleared before each test.
 */
import http from 'node:http';
import {
  BedrockRuntimeClient,
  type BedrockRuntimeServiceException,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler, type NodeHttpHandlerOptions } from '@smithy/node-http-handler';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { z } from 'zod';
import {
  type BedrockStandIn,
  type FaultPlanPatch,
  startBedrockStandIn,
} from '../../localstack/bedrock/index.js';
import { toolCategory } from '../helpers/tool-category.js';

/** A model Bedrock serves on demand by its base id, and through a US profile (catalogue.ts). */
export const ON_DEMAND = 'amazon.nova-lite-v1:0';
export const PROFILE_ARN =
  'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-lite-v1:0';

export const CLAUSES = [
  'The Supplier shall indemnify, defend and hold harmless the Customer from all losses; such liability shall be uncapped.',
  'Either party may terminate this Agreement for convenience upon thirty (30) days prior written notice.',
  'All inventions and work product shall be owned by the Company, and the Consultant hereby assigns all rights.',
  'Notices shall be sent to the addresses set out above.',
];
export const clause = (i: number): string => CLAUSES[i % CLAUSES.length] as string;

const Finding = z.strictObject({ quote: z.string().min(1).max(300), rationale: z.string().max(500) });
const Category = z.strictObject({
  score: z.number().int().min(0).max(3).nullable(),
  findings: z.array(Finding).max(5),
});
/** The answer the tool schema allows. */
export const Answer = z.strictObject({
  assessments: z.strictObject({ liability: Category, termination: Category, 'ip-ownership': Category }),
  summary: z.string().max(400),
});
/** A tool schema in the shape the analysts use: categories with nullable scores and findings, plus a summary. */
const TOOL_SCHEMA = {
  type: 'object',
  properties: {
    assessments: {
      type: 'object',
      properties: {
        liability: toolCategory(
          'Limitation of liability, caps, indemnify and hold harmless obligations, damages.',
        ),
        termination: toolCategory(
          'Termination for convenience or without cause, for breach, notice and cure periods.',
        ),
        'ip-ownership': toolCategory(
          'Ownership of intellectual property, inventions, work product; assignment of rights.',
        ),
      },
      required: ['liability', 'termination', 'ip-ownership'],
      additionalProperties: false,
    },
    summary: { type: 'string', maxLength: 400 },
  },
  required: ['assessments', 'summary'],
  additionalProperties: false,
};

export const converseInput = (text: string, modelId = ON_DEMAND, maxTokens = 2048): ConverseCommandInput => ({
  modelId,
  system: [{ text: 'You are a contract risk analyst. Answer only through the record_assessment tool.' }],
  messages: [{ role: 'user', content: [{ text: `Assess this clause.\n<clause>${text}</clause>` }] }],
  inferenceConfig: { maxTokens, temperature: 0 },
  toolConfig: {
    tools: [{ toolSpec: { name: 'record_assessment', inputSchema: { json: TOOL_SCHEMA } } }],
    toolChoice: { tool: { name: 'record_assessment' } },
  },
});

export const clientOptions = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
};

/** The stand-in of the file's tests, started by {@link useStandIn}. */
export let standIn: BedrockStandIn;
/** What `new BedrockRuntimeClient()` uses in Node: NodeHttp2Handler (h2c, one session per request). */
export let h2: BedrockRuntimeClient;
/** HTTP/1.1 with keep-alive. */
export let h1: BedrockRuntimeClient;
const extraClients: BedrockRuntimeClient[] = [];

/** An HTTP/1.1 client of the stand-in (keep-alive, `options` over the handler's), destroyed after the file. */
export function h1Client(options: NodeHttpHandlerOptions = {}, maxAttempts = 1): BedrockRuntimeClient {
  const client = new BedrockRuntimeClient({
    ...clientOptions,
    endpoint: standIn.url,
    maxAttempts,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true, maxSockets: 32 }),
      ...options,
    }),
  });
  extraClients.push(client);
  return client;
}

/** Runs a call and returns its error, failing the test if the call succeeds. */
export async function failure(
  client: BedrockRuntimeClient,
  input: ConverseCommandInput,
): Promise<BedrockRuntimeServiceException> {
  const outcome = await client.send(new ConverseCommand(input)).then(
    () => undefined,
    (error: unknown) => error as BedrockRuntimeServiceException,
  );
  expect(outcome, 'expected the call to fail').toBeDefined();
  return outcome as BedrockRuntimeServiceException;
}

/** The input of the answer's tool call. */
export const toolInput = (output: ConverseCommandOutput): unknown =>
  output.output?.message?.content?.find((block) => block.toolUse)?.toolUse?.input;

/** Replaces the plan and starts from clean books, capacity and seed. */
export const plan = (patch: FaultPlanPatch): void => {
  standIn.setPlan(patch, { replace: true });
  standIn.reset();
};

/**
 * Starts the stand-in and both clients before the file's tests and closes them after, with a
 * clean plan before each test. Called at the top of each file.
 */
export function useStandIn(): void {
  beforeAll(async () => {
    // The keyword heuristic: these cases pin its judgements and the faults around them.
    standIn = await startBedrockStandIn({ seed: 7, analyst: 'heuristic' });
    h2 = new BedrockRuntimeClient({ ...clientOptions, endpoint: standIn.url, maxAttempts: 1 });
    h1 = h1Client();
  });

  afterAll(async () => {
    for (const client of [h2, ...extraClients]) client.destroy();
    await standIn.close();
  });

  beforeEach(() => plan({}));
}
