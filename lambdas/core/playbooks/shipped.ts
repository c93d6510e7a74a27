/**
 * The playbooks shipped with the project (`default` and `nda`, from defaults/*.yaml), parsed
 * once. The store adds each to a stack's playbooks the first time it finds no version of that
 * name (store.ts), so a stack starts with them and keeps whatever a job was reviewed against.
 */
import { SHIPPED_PLAYBOOK_SOURCES } from './defaults.generated.js';
import { type ParsedPlaybook, parsePlaybook } from './parse.js';

let parsed: readonly ParsedPlaybook[] | undefined;

/** The shipped playbooks, validated, with their canonical JSON and hashes. */
export function shippedPlaybooks(): readonly ParsedPlaybook[] {
  parsed ??= SHIPPED_PLAYBOOK_SOURCES.map((s) => parsePlaybook(s.source, s.file));
  return parsed;
}
