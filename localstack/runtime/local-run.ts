import { type LocalPipeline, type LocalPipelineOptions, startLocalPipeline } from './local-pipeline.js';
import { type LocalStack, type LocalStackOptions, startLocalStack } from './local-stack.js';

/** What the pipeline takes besides the stack it runs on. */
export type PipelineOnStack = Omit<
  LocalPipelineOptions,
  'awsEndpoint' | 'bedrockEndpoint' | 'topology' | 'resources'
>;

/** A local stack with the pipeline's handlers running on it. */
export interface LocalRun {
  readonly stack: LocalStack;
  readonly pipeline: LocalPipeline;
  /** Stops the pipeline first (its leases are given back), then the stack under it. */
  stop(): Promise<void>;
}

/**
 * Starts a local stack and the pipeline on it, wired to the stack's emulator endpoint, the
 * Bedrock stand-in, its topology and what was provisioned: the one starter of `review`,
 * `local up`, the soak and the cost bench.
 */
export async function startLocalRun(
  stackOptions: LocalStackOptions,
  pipelineOptions: PipelineOnStack,
): Promise<LocalRun> {
  const stack = await startLocalStack(stackOptions);
  let pipeline: LocalPipeline;
  try {
    pipeline = startLocalPipeline({
      awsEndpoint: stack.awsEndpoint,
      bedrockEndpoint: stack.bedrock.url,
      topology: stack.topology,
      resources: stack.resources,
      ...pipelineOptions,
    });
  } catch (error) {
    await stack.stop();
    throw error;
  }
  return {
    stack,
    pipeline,
    async stop() {
      await pipeline.stop();
      await stack.stop();
    },
  };
}
