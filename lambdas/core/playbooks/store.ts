/**
 * A stack's playbooks, versioned, in the state table. Each put of new content adds the next
 * version (1, 2, …) and never overwrites one: a version's item is written only where none is,
 * so what a job recorded (name, version, sha256) can always be read back as it was.
 *
 * Items: `PLAYBOOK#<name>` / `V#000003` holds a version (its canonical JSON and sha256, who put
 * it and when); `PLAYBOOKS` / `<name>` holds the name's latest version, for the list. Both are
 * written in one transaction.
 *
 * The shipped playbooks (`default`, `nda`) are added as version 1 of their names the first time
 * the store is used and finds no version of that name: no deploy step, the same on every ground,
 * and a later release's edits to them never replace what a stack already holds (an
 * administrator puts the new file to take them).
 */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../state/errors.js';
import { PLAYBOOK_LIST_PK, playbookPk, playbookVersionSk } from '../state/keys.js';
import { queryAll } from '../state/query-all.js';
import { transactWrite } from '../state/transact.js';
import { sha256Hex } from './canonical.js';
import { PlaybookCorruptError, PlaybookNotFoundError } from './errors.js';
import type { ParsedPlaybook } from './parse.js';
import type { JobPlaybook, PlaybookRef, PlaybookRequest } from './ref.js';
import { type Party, type Playbook, playbookSchema } from './schema.js';
import { shippedPlaybooks } from './shipped.js';

/** What the store keeps of a version besides its content. */
export interface PlaybookVersion {
  readonly name: string;
  readonly version: number;
  /** sha256 (hex) of the version's canonical JSON. */
  readonly sha256: string;
  readonly title: string;
  readonly party: Party;
  readonly contractTypes: readonly string[];
  /** How many positions and required clauses it has. */
  readonly positions: number;
  readonly requiredClauses: number;
  readonly createdAt: string;
  /** Who put it: an ARN, a Cognito identity, or {@link SHIPPED_BY}. */
  readonly createdBy: string;
}

/** A stored version with its content. */
export interface StoredPlaybook extends PlaybookVersion {
  readonly playbook: Playbook;
}

/** A name's latest version, and how many versions it has. */
export interface PlaybookListing extends PlaybookVersion {
  readonly versions: number;
}

/** What a put did: added `version`, or found the same content as the latest already there. */
export interface PutOutcome {
  readonly created: boolean;
  readonly version: PlaybookVersion;
}

/** Who put the shipped playbooks. */
export const SHIPPED_BY = 'clause-review (shipped with the project)';

/** Tries of a put that meets another put of the same name. */
const PUT_ATTEMPTS = 5;

const SUMMARY_FIELDS = [
  'name',
  'version',
  'sha256',
  'title',
  'party',
  'contractTypes',
  'positions',
  'requiredClauses',
  'createdAt',
  'createdBy',
] as const satisfies readonly (keyof PlaybookVersion)[];

function summaryOf(item: Record<string, unknown>): PlaybookVersion {
  return Object.fromEntries(SUMMARY_FIELDS.map((f) => [f, item[f]])) as unknown as PlaybookVersion;
}

/** The job's record of a stored version. */
export function jobPlaybookOf(version: PlaybookVersion): JobPlaybook {
  return { name: version.name, version: version.version, sha256: version.sha256, title: version.title };
}

/** Playbook versions a process keeps at once, by hash (PlaybookStore.forJob). */
const KEPT = 32;
const kept = new Map<string, Promise<Playbook>>();

/** Reads and writes a stack's playbooks. */
export class PlaybookStore {
  private readonly now: () => number;
  private seeded: Promise<void> | undefined;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: { readonly now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Adds `parsed` as the next version of its name, unless the latest version has the same
   * content (then nothing is written and `created` is false).
   */
  async put(parsed: ParsedPlaybook, by: string): Promise<PutOutcome> {
    await this.seed();
    return this.putVersion(parsed, by, false);
  }

  /** Every playbook's latest version, by name. */
  async list(): Promise<PlaybookListing[]> {
    await this.seed();
    return (await this.listItems()).map((i) => ({ ...summaryOf(i), versions: Number(i.versions) }));
  }

  /** Every version of a playbook, oldest first. @throws PlaybookNotFoundError */
  async versions(name: string): Promise<PlaybookVersion[]> {
    await this.seed();
    const items = await queryAll<Record<string, unknown>>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': playbookPk(name) },
      ProjectionExpression: SUMMARY_FIELDS.map((_, i) => `#f${i}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(SUMMARY_FIELDS.map((f, i) => [`#f${i}`, f])),
      ConsistentRead: true,
    });
    if (items.length === 0) throw await this.unknown(name);
    return items.map(summaryOf);
  }

  /**
   * The content of the playbook a job records, read back by name and version and checked against
   * the sha256 the job recorded, so a job is always judged against exactly what it was quoted
   * with. A version never changes once put, so the process keeps what it read by its hash: the
   * worker's every chunk, finalize and the live view read it once.
   * @throws PlaybookNotFoundError when the version is gone (purged by hand)
   * @throws PlaybookCorruptError when the stored version's hash is not the one the job recorded
   */
  forJob(ref: PlaybookRef): Promise<Playbook> {
    let content = kept.get(ref.sha256);
    if (!content) {
      content = (async () => {
        const stored = await this.get({ name: ref.name, version: ref.version });
        if (stored.sha256 !== ref.sha256)
          throw new PlaybookCorruptError(ref.name, ref.version, ref.sha256, stored.sha256);
        return stored.playbook;
      })();
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
      kept.set(ref.sha256, content);
      // A failed read is tried again by the next caller.
      content.catch(() => kept.delete(ref.sha256));
    }
    return content;
  }

  /**
   * The version a request names, or the name's latest.
   * @throws PlaybookNotFoundError naming the playbooks (or versions) there are
   * @throws PlaybookCorruptError when the stored content does not hash to its recorded sha256
   */
  async get(request: PlaybookRequest): Promise<StoredPlaybook> {
    await this.seed();
    const { name } = request;
    let version = request.version;
    if (version === undefined) {
      const latest = await this.getItem(PLAYBOOK_LIST_PK, name);
      if (!latest) throw await this.unknown(name);
      version = Number(latest.version);
    }
    const item = await this.getItem(playbookPk(name), playbookVersionSk(version));
    if (!item) {
      const latest = await this.getItem(PLAYBOOK_LIST_PK, name);
      if (!latest) throw await this.unknown(name);
      throw new PlaybookNotFoundError(
        name,
        version,
        `playbook '${name}' has no version ${version}; its versions are 1 to ${latest.version}`,
      );
    }
    const content = String(item.content);
    const actual = sha256Hex(content);
    if (actual !== item.sha256) throw new PlaybookCorruptError(name, version, String(item.sha256), actual);
    const { $schema: _schema, ...playbook } = playbookSchema.parse(JSON.parse(content));
    return { ...summaryOf(item), playbook };
  }

  /** The shipped playbooks whose names have no version yet, added as version 1; once per store. */
  private seed(): Promise<void> {
    this.seeded ??= (async () => {
      const have = new Set((await this.listItems()).map((i) => String(i.name)));
      for (const p of shippedPlaybooks()) {
        if (!have.has(p.playbook.name)) await this.putVersion(p, SHIPPED_BY, true);
      }
    })().catch((error: unknown) => {
      // Tried again by the next call.
      this.seeded = undefined;
      throw error;
    });
    return this.seeded;
  }

  /** The put itself: read the latest, write the next version and the list item together. */
  private async putVersion(parsed: ParsedPlaybook, by: string, onlyIfNone: boolean): Promise<PutOutcome> {
    const { playbook, canonical, sha256 } = parsed;
    for (let attempt = 1; ; attempt++) {
      const latest = await this.getItem(PLAYBOOK_LIST_PK, playbook.name);
      if (latest && (onlyIfNone || latest.sha256 === sha256))
        return { created: false, version: summaryOf(latest) };
      const version: PlaybookVersion = {
        name: playbook.name,
        version: Number(latest?.version ?? 0) + 1,
        sha256,
        title: playbook.title,
        party: playbook.party,
        contractTypes: playbook.contractTypes,
        positions: playbook.positions.length,
        requiredClauses: playbook.requiredClauses.length,
        createdAt: new Date(this.now()).toISOString(),
        createdBy: by,
      };
      try {
        await transactWrite(this.db, {
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  pk: playbookPk(version.name),
                  sk: playbookVersionSk(version.version),
                  ...version,
                  content: canonical,
                },
                // A version, once written, is never written again.
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { pk: PLAYBOOK_LIST_PK, sk: version.name, ...version, versions: version.version },
                ConditionExpression: 'attribute_not_exists(pk) OR #version < :version',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':version': version.version },
              },
            },
          ],
        });
        return { created: true, version };
      } catch (error) {
        // Another put of this name took the version first: read again and take the next.
        if (!isConditionFailure(error) || attempt >= PUT_ATTEMPTS) throw error;
      }
    }
  }

  private async listItems(): Promise<Record<string, unknown>[]> {
    return queryAll<Record<string, unknown>>(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': PLAYBOOK_LIST_PK },
      ConsistentRead: true,
    });
  }

  private async getItem(pk: string, sk: string): Promise<Record<string, unknown> | undefined> {
    const r = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: { pk, sk }, ConsistentRead: true }),
    );
    return r.Item;
  }

  /** The refusal of an unknown name, naming the playbooks there are. */
  private async unknown(name: string): Promise<PlaybookNotFoundError> {
    const names = (await this.listItems()).map((i) => String(i.name));
    return new PlaybookNotFoundError(
      name,
      undefined,
      `no playbook named '${name}'; the stack has ${names.length > 0 ? names.join(', ') : 'none'} ` +
        '(clause-review playbook list)',
    );
  }
}
