/**
 * The status API's playbooks: every signed-in caller may list them and read any version; only
 * the administrators the stack names may put one. A put sends the playbook file's text, so a
 * refusal names each problem with its field path, line and column in that file.
 */
import { z } from 'zod';
import { parseRequest } from '../core/jobs/index.js';
import {
  isPlaybookInvalidError,
  isPlaybookNotFoundError,
  isPlaybookRefError,
  issueLine,
  MAX_PLAYBOOK_SOURCE_BYTES,
  type PlaybookListing,
  type PlaybookStore,
  type PlaybookVersion,
  type PutOutcome,
  parsePlaybook,
  parsePlaybookRequest,
  type StoredPlaybook,
} from '../core/playbooks/index.js';
import { isAdministratorOf, ownerOf, type Principal } from './access.js';
import { BadRequestError, JobUnknownError, NotAdministratorError, PlaybookUnknownError } from './errors.js';
import { refusals } from './jobs-api.js';

/** The body of POST /playbooks. */
export const putPlaybookRequestSchema = z
  .object({
    /** The playbook file's text: YAML, or JSON. */
    source: z
      .string()
      .min(1)
      .refine((s) => Buffer.byteLength(s, 'utf8') <= MAX_PLAYBOOK_SOURCE_BYTES, {
        message: `must be at most ${MAX_PLAYBOOK_SOURCE_BYTES} bytes`,
      }),
    /** The file's name, for the messages of a refusal. */
    filename: z.string().min(1).max(200).optional(),
  })
  .strict();

/** What GET /playbooks answers. */
export interface PlaybookList {
  readonly playbooks: readonly PlaybookListing[];
}

/** What GET /playbooks/{name}[@version] answers: the version with its content, and every version. */
export interface PlaybookView extends StoredPlaybook {
  readonly versions: readonly PlaybookVersion[];
}

/** What POST /playbooks answers. */
export type PutPlaybookView = PutOutcome;

/** The playbook routes. */
export class PlaybooksApi {
  constructor(
    private readonly store: PlaybookStore,
    private readonly administrators: readonly string[],
  ) {}

  /** GET /playbooks: the latest version of each. */
  async list(caller?: Principal): Promise<PlaybookList> {
    signedIn(caller, 'GET /playbooks');
    return { playbooks: await this.store.list() };
  }

  /**
   * GET /playbooks/{name} or /playbooks/{name}@{version}.
   * @throws BadRequestError for text that names no playbook; PlaybookUnknownError (404)
   */
  async show(id: string, caller?: Principal): Promise<PlaybookView> {
    signedIn(caller, 'GET /playbooks/{name}');
    return found(async () => {
      const request = parsePlaybookRequest(id);
      const stored = await this.store.get(request);
      return { ...stored, versions: await this.store.versions(request.name) };
    });
  }

  /**
   * POST /playbooks: validates the file and adds it as the next version of its name (201), or
   * answers the latest version when it has the same content (200).
   * @throws NotAdministratorError (403) for anyone but an administrator; BadRequestError
   */
  async put(body: unknown, caller?: Principal): Promise<{ status: 200 | 201; view: PutPlaybookView }> {
    if (!caller || !isAdministratorOf(caller, this.administrators)) {
      throw new NotAdministratorError(
        'only an administrator of this stack may put a playbook; anyone signed in may list and read them',
      );
    }
    const request = await refusals(async () => parseRequest(putPlaybookRequestSchema, body, 'playbook'));
    let parsed: ReturnType<typeof parsePlaybook>;
    try {
      parsed = parsePlaybook(request.source, request.filename);
    } catch (error) {
      if (!isPlaybookInvalidError(error)) throw error;
      throw new BadRequestError(
        error.message,
        error.issues.map((i) => issueLine(i)),
      );
    }
    const view = await this.store.put(parsed, ownerOf(caller));
    return { status: view.created ? 201 : 200, view };
  }
}

/** The playbooks are the stack's: any signed caller may read them, and nobody unsigned. */
function signedIn(caller: Principal | undefined, route: string): asserts caller is Principal {
  if (!caller) throw new JobUnknownError('', `no caller: ${route} answers signed callers only`);
}

/** Runs a read, turning a name that is not one, or not the store's, into the API's refusals. */
async function found<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isPlaybookRefError(error)) throw new BadRequestError(error.message);
    if (isPlaybookNotFoundError(error)) throw new PlaybookUnknownError(error.message);
    throw error;
  }
}
