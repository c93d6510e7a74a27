/**
 * `clause-review doctor`: checks every configured model against Bedrock's control plane (is it
 * active, accessible, served the way it is called), then sends each one real request of exactly
 * the shape the workers send and says which endpoint served it, or what to do about a refusal.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { BedrockClient } from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { checkPanelModels, type PanelModels, panelModelIds } from '../../lambdas/core/analysts/index.js';
import { FALLBACK_MODEL_ID, PRIMARY_MODEL_ID } from '../../lambdas/core/model-catalogue.js';
import { checkModels, type ModelVerdict } from '../../lambdas/core/model-lifecycle.js';
import { EMULATOR_CREDENTIALS } from '../../lambdas/shared/aws-clients.js';
import { STACK_OUTPUTS } from '../../lib/stack-outputs.js';
import { LOCAL_REGION } from '../../localstack/aws-clients.js';
import { parseFaultPlanPatch, startBedrockStandIn } from '../../localstack/bedrock/index.js';
import { CliError, type CliIo } from './cli-error.js';
import { printShapes, probeModels } from './doctor-shapes.js';
import { DEFAULT_STACK, explainAwsError, TARGET_ARGS } from './target.js';

export const DOCTOR_USAGE = `Usage: clause-review doctor [--local [--plan FILE] | --stack NAME] [--profile P] [--region R] [--model ID]

Checks each model the analysts are configured to call: that Bedrock serves it in the region
(ACTIVE, or LEGACY with its end-of-life date), that the account may call it, and that it is
invoked the way Bedrock serves it (through an inference profile where it must be). Then it sends
each model one real request of exactly the shape the workers send (a forced tool call, the
model's thinking turned off where it thinks by default, no sampling parameters where it takes
none, a prompt-cache point after the document's context; some 31,000 characters, under a cent
on Haiku, about four cents on Sonnet), and says which endpoint served it, or, when Bedrock refuses it, the fix:
the fallback model, or the flag that switches the model. --local asks the local stack's Bedrock
stand-in (--plan FILE: a stand-in plan patch, such as {"catalogue":{"refuse":
{"anthropic.claude-haiku-5-5":["forced-tool"]}}}, to see a refusal); otherwise the deployed
stack's models are read from its outputs and checked in its account and region. --model checks
one more model id.
Exit status: 0 when every model can be called and served the request, 1 otherwise.`;

/** The models a local run calls: the runtime's defaults, or the environment's. */
function localModels(env: NodeJS.ProcessEnv): PanelModels {
  return checkPanelModels({
    primary: env.MODEL_ID ?? PRIMARY_MODEL_ID,
    fallback: env.FALLBACK_MODEL_ID ?? FALLBACK_MODEL_ID,
    perAnalyst: env.ANALYST_MODELS ? JSON.parse(env.ANALYST_MODELS) : {},
  });
}

/** The models the deployed stack's outputs name. */
async function deployedModels(stack: string, cfn: CloudFormationClient): Promise<PanelModels> {
  const described = await cfn.send(new DescribeStacksCommand({ StackName: stack }));
  const output = described.Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === STACK_OUTPUTS.models);
  if (!output?.OutputValue) {
    throw new CliError(
      `stack '${stack}' has no ${STACK_OUTPUTS.models} output: deploy the current version (npx cdk deploy) first`,
    );
  }
  return JSON.parse(output.OutputValue) as PanelModels;
}

const MARK: Readonly<Record<ModelVerdict['level'], string>> = { ok: 'ok  ', warning: 'WARN', error: 'FAIL' };

/** Prints one line per model and returns the exit status. */
export function printVerdicts(
  verdicts: readonly ModelVerdict[],
  roles: ReadonlyMap<string, string>,
  io: CliIo,
): number {
  for (const v of verdicts) {
    io.out(`${MARK[v.level]} ${v.modelId} (${roles.get(v.modelId) ?? 'checked'}): ${v.state}. ${v.message}`);
  }
  const errors = verdicts.filter((v) => v.level === 'error').length;
  const warnings = verdicts.filter((v) => v.level === 'warning').length;
  io.out(
    errors > 0
      ? `${errors} model(s) cannot be called: jobs using them are refused at intake. Fix the configuration (cdk deploy -c models=… or MODEL_ID/FALLBACK_MODEL_ID) and run doctor again.`
      : `every model can be called${warnings > 0 ? `; ${warnings} warning(s) to plan for` : ''}`,
  );
  return errors > 0 ? 1 : 0;
}

function rolesOf(panel: PanelModels, extra: string | undefined): Map<string, string> {
  const roles = new Map<string, string>();
  const add = (id: string, role: string) => roles.set(id, roles.has(id) ? `${roles.get(id)}, ${role}` : role);
  add(panel.primary, 'primary');
  add(panel.fallback, 'fallback');
  for (const [analyst, m] of Object.entries(panel.perAnalyst ?? {})) {
    if (m.primary) add(m.primary, `${analyst} primary`);
    if (m.fallback) add(m.fallback, `${analyst} fallback`);
  }
  if (extra && !roles.has(extra)) roles.set(extra, '--model');
  return roles;
}

/** `clause-review doctor …` */
export async function doctorCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...TARGET_ARGS, model: { type: 'string' }, plan: { type: 'string' } },
  });
  if (values.local && (values.stack || values.profile)) {
    throw new CliError('--local cannot be combined with --stack or --profile');
  }
  if (values.plan && !values.local)
    throw new CliError('--plan tells the local stand-in what to refuse: use it with --local');
  const extra = values.model?.trim() || undefined;
  if (values.local) {
    const panel = localModels(process.env);
    const ids = [...new Set([...panelModelIds(panel), ...(extra ? [extra] : [])])];
    const plan = values.plan ? await readPlan(values.plan) : undefined;
    const standIn = await startBedrockStandIn(plan ? { plan } : {});
    const aws = { endpoint: standIn.url, region: LOCAL_REGION, credentials: EMULATOR_CREDENTIALS };
    const bedrock = new BedrockClient(aws);
    const runtime = new BedrockRuntimeClient({ ...aws, maxAttempts: 1 });
    try {
      io.out(`models of the local stack, as the Bedrock stand-in's catalogue serves them (${LOCAL_REGION}):`);
      return await check(
        bedrock,
        runtime,
        { panel, ids, region: LOCAL_REGION, roles: rolesOf(panel, extra) },
        io,
      );
    } finally {
      bedrock.destroy();
      runtime.destroy();
      await standIn.close();
    }
  }
  const stack = values.stack ?? DEFAULT_STACK;
  const config = {
    ...(values.region ? { region: values.region } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
  };
  const cfn = new CloudFormationClient(config);
  const bedrock = new BedrockClient(config);
  // One attempt: a throttled probe is reported as unchecked, not retried behind the deployer's back.
  const runtime = new BedrockRuntimeClient({ ...config, maxAttempts: 1 });
  try {
    const panel = await deployedModels(stack, cfn);
    const region = await bedrock.config.region();
    const ids = [...new Set([...panelModelIds(panel), ...(extra ? [extra] : [])])];
    io.out(`models of stack '${stack}' in ${region}:`);
    return await check(bedrock, runtime, { panel, ids, region, roles: rolesOf(panel, extra) }, io);
  } catch (error) {
    throw explainAwsError(error, values, stack) ?? error;
  } finally {
    cfn.destroy();
    bedrock.destroy();
    runtime.destroy();
  }
}

/** The control plane's verdicts, then the workers' request sent to every model it found callable. */
async function check(
  bedrock: BedrockClient,
  runtime: BedrockRuntimeClient,
  what: { panel: PanelModels; ids: string[]; region: string; roles: Map<string, string> },
  io: CliIo,
): Promise<number> {
  const lifecycle = await checkModels(bedrock, what.ids, what.region);
  const status = printVerdicts(lifecycle, what.roles, io);
  io.out('the request the workers send, one to each model:');
  const shapes = printShapes(await probeModels(runtime, lifecycle), what.roles, what.panel, io);
  return Math.max(status, shapes);
}

/** A stand-in plan patch from a JSON file, checked as the stand-in checks one. */
async function readPlan(path: string) {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`--plan ${path}: ${(error as Error).message}`, 2, { cause: error });
  }
  try {
    return parseFaultPlanPatch(JSON.parse(text));
  } catch (error) {
    throw new CliError(`--plan ${path} is not a stand-in plan: ${(error as Error).message}`, 2, {
      cause: error,
    });
  }
}
