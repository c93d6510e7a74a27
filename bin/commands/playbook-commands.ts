/**
 * `clause-review playbook validate|put|list|show`: playbook files checked on this machine, and
 * the stack's playbooks through the status API.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { stringify } from 'yaml';
import type { PlaybookView } from '../../lambdas/api/playbooks-api.js';
import {
  isPlaybookInvalidError,
  type ParsedPlaybook,
  type PlaybookVersion,
  parsePlaybook,
} from '../../lambdas/core/playbooks/index.js';
import { parse, type TargetResolver, withTarget } from './api-commands.js';
import { CliError, type CliIo } from './cli-error.js';
import { resolveTarget } from './target.js';

export const PLAYBOOK_USAGE = `clause-review playbook — the team's positions a contract is reviewed against

Usage:
  clause-review playbook validate <file...>      check playbook files here, no stack needed: every problem with its line
  clause-review playbook put <file>              add a file as the next version of its playbook (administrators only)
  clause-review playbook list                    the stack's playbooks, latest version of each
  clause-review playbook show <name>[@<version>] [--json]
                                                 one version (the latest without @), as YAML, and its history

put, list and show take the target options (--local, --stack, --profile, --region).
The format: docs/playbooks.md; editors validate with docs/playbook.schema.json.`;

/** Reads and validates a playbook file. @throws CliError naming every problem with its line */
export function readPlaybookFile(file: string): ParsedPlaybook {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    return parsePlaybook(source, basename(file));
  } catch (error) {
    if (isPlaybookInvalidError(error)) throw new CliError(error.message, 1, { cause: error });
    throw error;
  }
}

const short = (sha256: string) => sha256.slice(0, 12);

/** One line on a valid playbook. */
function summaryLine({ playbook, sha256 }: ParsedPlaybook): string {
  return (
    `${playbook.name}: "${playbook.title}", ${playbook.party} side of ${playbook.contractTypes.join('/')}, ` +
    `${playbook.positions.length} positions, ${playbook.requiredClauses.length} required clauses, sha256 ${sha256}`
  );
}

/** `playbook validate <file...>`: 0 when every file is a valid playbook. */
function validate(files: string[], io: CliIo): number {
  if (files.length === 0)
    throw new CliError('name the playbook files: clause-review playbook validate <file...>');
  let failed = 0;
  for (const file of files) {
    try {
      io.out(`ok ${file}: ${summaryLine(readPlaybookFile(file))}`);
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode !== 1) throw error;
      io.err(error.message);
      failed++;
    }
  }
  return failed > 0 ? 1 : 0;
}

/** The history of a playbook, newest first. */
function historyLines(versions: readonly PlaybookVersion[]): string[] {
  return [...versions]
    .reverse()
    .map((v) => `#   @${v.version}  ${v.createdAt}  ${short(v.sha256)}  by ${v.createdBy}`);
}

/** `show`'s text: the version's facts and history as YAML comments, then the playbook. */
export function playbookText(view: PlaybookView): string {
  return [
    `# ${view.name}@${view.version}  sha256 ${view.sha256}`,
    `# put ${view.createdAt} by ${view.createdBy}`,
    '# versions:',
    ...historyLines(view.versions),
    stringify(view.playbook, { lineWidth: 110 }).trimEnd(),
  ].join('\n');
}

/** `playbook <validate|put|list|show> …`. */
export async function playbookCommand(
  argv: string[],
  io: CliIo,
  resolveWith: TargetResolver = resolveTarget,
): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, { json: { type: 'boolean' } });
  switch (sub) {
    case 'validate':
      return validate(positionals, io);
    case 'put': {
      const [file, ...extra] = positionals;
      if (!file || extra.length > 0)
        throw new CliError('name one playbook file: clause-review playbook put <file>');
      // Checked here first: a refusal names the lines of the file on this machine.
      const parsed = readPlaybookFile(file);
      return withTarget(values, resolveWith, async (target) => {
        const { created, version } = await target.api.putPlaybook({
          source: readFileSync(file, 'utf8'),
          filename: basename(file),
        });
        io.out(
          created
            ? `put ${version.name}@${version.version} (sha256 ${version.sha256})`
            : `unchanged: ${version.name}@${version.version} already has this content (sha256 ${parsed.sha256})`,
        );
        return 0;
      });
    }
    case 'list':
      return withTarget(values, resolveWith, async (target) => {
        const { playbooks } = await target.api.playbooks();
        if (values.json) io.out(JSON.stringify(playbooks, null, 2));
        else
          for (const p of playbooks) {
            io.out(
              `${`${p.name}@${p.version}`.padEnd(24)} ${p.party.padEnd(10)} ${p.contractTypes.join(',').padEnd(24)} ` +
                `${String(p.positions).padStart(3)} positions  ${p.versions} version(s)  ${p.title}`,
            );
          }
        return 0;
      });
    case 'show': {
      const [ref, ...extra] = positionals;
      if (!ref || extra.length > 0)
        throw new CliError('name one playbook: clause-review playbook show <name>[@<version>]');
      return withTarget(values, resolveWith, async (target) => {
        const view = await target.api.playbook(ref);
        io.out(values.json ? JSON.stringify(view, null, 2) : playbookText(view));
        return 0;
      });
    }
    default:
      throw new CliError(
        `${sub ? `unknown playbook command '${sub}'` : 'name a playbook command'}\n\n${PLAYBOOK_USAGE}`,
      );
  }
}
