/**
 * Reads a playbook file (YAML, or JSON, which is YAML too) into a validated playbook, its
 * canonical JSON and content hash. Every problem is reported at once, each with its field path
 * and the line and column where the file has it, as a person fixing the file needs.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import type { z } from 'zod';
import { canonicalJson, sha256Hex } from './canonical.js';
import { PlaybookInvalidError, type PlaybookIssue } from './errors.js';
import { type Playbook, playbookSchema } from './schema.js';

/** Most bytes of a playbook file (comments and layout included). */
export const MAX_PLAYBOOK_SOURCE_BYTES = 512 * 1024;
/**
 * Most bytes of a playbook's canonical JSON: a stored version is one state-table item, and
 * DynamoDB's items hold at most 400 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
 */
export const MAX_PLAYBOOK_BYTES = 256 * 1024;
/** YAML aliases a file may expand: enough for shared language, too few for an alias bomb. */
const MAX_ALIASES = 100;

/** A valid playbook with its canonical JSON and the sha256 of it. */
export interface ParsedPlaybook {
  readonly playbook: Playbook;
  /** The canonical JSON (RFC 8785) of `playbook`: what is stored and hashed. */
  readonly canonical: string;
  /** sha256 (hex) of `canonical`. */
  readonly sha256: string;
}

type Path = readonly PropertyKey[];

/** `positions[2].fallbacks[0].threshold`. */
function pathText(path: Path): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`))
    .join('');
}

/** The node at `path`, or the nearest one above it that the file has; `exact` says which. */
function nodeAt(root: unknown, path: Path): { node: Node | undefined; exact: boolean } {
  let node = root as Node | undefined;
  for (const key of path) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
      // A key with no value (`threshold:`) is found at the key.
      next = pair ? (pair.value ?? pair.key) : undefined;
    } else if (isSeq(node) && typeof key === 'number') next = node.items[key];
    if (!next) return { node, exact: false };
    node = next as Node;
  }
  return { node, exact: true };
}

/** The key node of `key` in the map at `path`. */
function keyAt(root: unknown, path: Path, key: string): Node | undefined {
  const { node, exact } = nodeAt(root, path);
  if (!exact || !isMap(node)) return undefined;
  const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
  return pair && isScalar(pair.key) ? pair.key : undefined;
}

/** One zod issue as a playbook issue: where in the file, and a message that says what to do. */
function issueOf(issue: z.core.$ZodIssue, root: unknown, lines: LineCounter): PlaybookIssue {
  let path: Path = issue.path;
  let message = issue.message;
  let at: Node | undefined;
  if (issue.code === 'unrecognized_keys') {
    const [key = ''] = issue.keys;
    at = keyAt(root, path, key);
    path = [...path, key];
    message =
      key === 'version' && issue.path.length === 0
        ? "unknown field 'version': versions are assigned by `clause-review playbook put`; remove it"
        : `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `'${k}'`).join(', ')}`;
  } else {
    // Past the most items an array holds, point at the first one too many.
    if (issue.code === 'too_big' && issue.origin === 'array' && typeof issue.maximum === 'number')
      path = [...path, Number(issue.maximum)];
    const found = nodeAt(root, path);
    at = found.node;
    // A field the file does not have (its nearest parent was found instead); a check across
    // fields says itself what is missing.
    if (!found.exact && issue.code !== 'custom' && typeof path[path.length - 1] === 'string')
      message = 'is required';
    if (issue.code === 'too_big' && issue.origin === 'array') path = issue.path;
  }
  const offset = at?.range?.[0];
  const pos = offset === undefined ? { line: 1, col: 1 } : lines.linePos(offset);
  return { path: pathText(path), line: pos.line, column: pos.col, message };
}

/**
 * Parses and validates a playbook file.
 *
 * @param file the file's name, for messages
 * @throws PlaybookInvalidError naming every problem with its field path, line and column
 * @example
 * const { playbook, sha256 } = parsePlaybook(readFileSync('nda.yaml', 'utf8'), 'nda.yaml');
 */
export function parsePlaybook(source: string, file?: string): ParsedPlaybook {
  const bytes = Buffer.byteLength(source, 'utf8');
  if (bytes > MAX_PLAYBOOK_SOURCE_BYTES) {
    throw new PlaybookInvalidError(
      [
        {
          path: '',
          message: `the file has ${bytes} bytes; a playbook file has at most ${MAX_PLAYBOOK_SOURCE_BYTES}`,
        },
      ],
      file,
    );
  }
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new PlaybookInvalidError(
      doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        return { path: '', line: pos.line, column: pos.col, message: `${e.message} (${e.code})` };
      }),
      file,
    );
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    throw new PlaybookInvalidError(
      [{ path: '', line: 1, column: 1, message: (error as Error).message }],
      file,
    );
  }
  const parsed = playbookSchema.safeParse(data);
  if (!parsed.success) {
    throw new PlaybookInvalidError(
      parsed.error.issues.map((i) => issueOf(i, doc.contents, lines)),
      file,
    );
  }
  const { $schema: _schema, ...playbook } = parsed.data;
  return withHash(playbook, file);
}

/**
 * A validated playbook with its canonical JSON and hash.
 * @throws PlaybookInvalidError when its canonical JSON is over MAX_PLAYBOOK_BYTES
 */
export function withHash(playbook: Playbook, file?: string): ParsedPlaybook {
  const canonical = canonicalJson(playbook);
  const size = Buffer.byteLength(canonical, 'utf8');
  if (size > MAX_PLAYBOOK_BYTES) {
    throw new PlaybookInvalidError(
      [
        {
          path: '',
          message: `the playbook is ${size} bytes as canonical JSON; at most ${MAX_PLAYBOOK_BYTES}`,
        },
      ],
      file,
    );
  }
  return { playbook, canonical, sha256: sha256Hex(canonical) };
}
