/**
 * `clause-review addin manifest`: writes the Word add-in's manifest.xml for a deployed stack
 * (its AppUrl, from the stack's outputs) or for the local stack `local up` runs, for sideloading
 * into Word or uploading in the Microsoft 365 admin center. The deployed stack serves the same
 * file at its AddinManifestUrl.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  ADDIN_PATH,
  type AddinManifestOptions,
  addinManifest,
  isAddinManifestError,
} from '../../lib/addin-manifest.js';
import { STACK_OUTPUTS } from '../../lib/stack-outputs.js';
import { CliError, type CliIo } from './cli-error.js';
import { isAlive, localStateFile, readLocalState } from './local-state.js';
import { DEFAULT_STACK, explainAwsError, TARGET_ARGS, TARGET_USAGE } from './target.js';

export const ADDIN_USAGE = `clause-review addin — the Word add-in

Usage:
  clause-review addin manifest [--out FILE] [--base URL] (--stack NAME [--profile P] [--region R] | --local)
                        write manifest.xml (default ./manifest.xml) naming the stack's add-in pages:
                        sideload it into Word, or upload it in the Microsoft 365 admin center
  --base URL            where the add-in's pages are served instead, ending in '/' (a local stack
                        behind an HTTPS proxy: https://localhost:3000/addin/)

${TARGET_USAGE}

docs/word-addin.md says how to install it.`;

/** The manifest of a deployed stack, from its outputs. @throws CliError when it has no AppUrl */
export function manifestFromOutputs(
  outputs: Readonly<Record<string, string | undefined>>,
  stack: string,
): AddinManifestOptions {
  const appUrl = outputs[STACK_OUTPUTS.appUrl];
  if (!appUrl) {
    throw new CliError(
      `stack '${stack}' has no ${STACK_OUTPUTS.appUrl} output: deploy the current version (npx cdk deploy) to get the reviewer app and its add-in`,
    );
  }
  return { base: `${appUrl}${ADDIN_PATH}`, deployment: stack, supportUrl: appUrl };
}

async function deployedManifest(values: { stack?: string; profile?: string; region?: string }) {
  const stack = values.stack ?? DEFAULT_STACK;
  const cfn = new CloudFormationClient({
    ...(values.region ? { region: values.region } : {}),
    ...(values.profile ? { profile: values.profile } : {}),
  });
  try {
    const described = await cfn.send(new DescribeStacksCommand({ StackName: stack }));
    const outputs = Object.fromEntries(
      (described.Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue]),
    );
    return manifestFromOutputs(outputs, stack);
  } catch (error) {
    throw explainAwsError(error, values, stack) ?? error;
  } finally {
    cfn.destroy();
  }
}

function localManifest(): AddinManifestOptions {
  const file = localStateFile();
  const state = readLocalState(file);
  if (!state || !isAlive(state.pid) || !state.appUrl) {
    throw new CliError(
      `no local stack with the reviewer app is running (${file}); start one with 'npx clause-review local up'`,
    );
  }
  return { base: `${state.appUrl}${ADDIN_PATH}`, deployment: 'local', supportUrl: state.appUrl };
}

/** `addin manifest`. */
export async function addinCommand(argv: string[], io: CliIo): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { ...TARGET_ARGS, out: { type: 'string' }, base: { type: 'string' } },
  });
  if (positionals.join(' ') !== 'manifest') {
    throw new CliError(`'addin' takes 'manifest'; got '${positionals.join(' ')}'\n\n${ADDIN_USAGE}`);
  }
  if (values.local && (values.stack || values.profile))
    throw new CliError('--local cannot be combined with --stack or --profile');
  const found = values.local ? localManifest() : await deployedManifest(values);
  const options = values.base ? { ...found, base: values.base } : found;
  let xml: string;
  try {
    xml = addinManifest(options);
  } catch (error) {
    if (isAddinManifestError(error)) throw new CliError(`--base: ${error.message}`);
    throw error;
  }
  const out = resolve(values.out ?? 'manifest.xml');
  writeFileSync(out, xml);
  io.out(out);
  io.err(`the add-in's task pane: ${options.base}taskpane.html`);
  if (options.base.startsWith('http://')) {
    io.err(
      'Word loads add-ins over HTTPS only: serve these pages through an HTTPS proxy and pass its address as --base (docs/word-addin.md, "Against local up")',
    );
  }
  return 0;
}
