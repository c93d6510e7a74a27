/**
 * A Word document for unit tests of the add-in's Word-facing module, built on office-addin-mock
 * (Microsoft's mock of the Office.js object model): every object the code reads is an
 * `OfficeMockObject`, so a property read before `load` and `context.sync()` is the mock's
 * "property was not loaded" error, as in Word. Behind the objects, a small model of Word: the
 * body's paragraphs (joined by paragraph marks), ranges as spans of it, paragraph search
 * (Word's `^^`, `^t` and `^l` codes; a case-insensitive search unless `matchCase`), comments,
 * and edits recorded with the document's change tracking mode at the time. As in Word, a
 * queued call that Word refuses (a comment, where `refuseComments` names the error code) fails
 * the next `context.sync()`, not the call.
 */
import { OfficeMockObject } from 'office-addin-mock';
import type { Requirements, WordRun } from '../../lambdas/app/addin/word-document.js';

/** A comment in the model: its text and the span of the body it is anchored on. */
export interface ModelComment {
  readonly content: string;
  readonly start: number;
  readonly end: number;
  readonly anchored: string;
}

/** An edit made to the body, with the change tracking mode in force when it was made. */
export interface ModelEdit {
  readonly kind: 'insert' | 'delete' | 'replace';
  readonly at: number;
  readonly removed: string;
  readonly inserted: string;
  readonly trackingMode: string;
}

/** A tracked change of the model, as `Body.getTrackedChanges` gives it, and what was decided of it. */
export interface ModelTrackedChange {
  readonly author: string;
  readonly type: 'Added' | 'Deleted' | 'Formatted';
  readonly text: string;
  decided?: 'accepted' | 'rejected';
}

/** Options of {@link wordMock}. */
export interface WordMockOptions {
  /** Tracked changes in the document (WordApi 1.6). */
  readonly tracked?: readonly ModelTrackedChange[];
  /** Comments already in the document. */
  readonly comments?: readonly ModelComment[];
  /** Word refuses comments with this error code at the next sync (`NotAllowed`, `AccessDenied`). */
  readonly refuseComments?: string;
  /** The change tracking mode the document starts with. @default 'Off' */
  readonly trackingMode?: string;
  /** Requirement sets the host supports, as `WordApi 1.4`. @default WordApi 1.1 to 1.4 */
  readonly sets?: readonly string[];
}

type Mock = OfficeMockObject & Record<string, unknown>;
/** `OfficeMockObject.setValue`, which its typings mark private though its documentation offers it. */
type Settable = { setValue(name: string, value: unknown): void };

/** A Word-ish error, as OfficeExtension.Error carries its code. */
class WordError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Builds the model and its mock; `run` is `Word.run` over it. */
export function wordMock(paragraphs: readonly string[], options: WordMockOptions = {}) {
  let body = paragraphs.join('\r');
  const comments: ModelComment[] = [...(options.comments ?? [])];
  const tracked: ModelTrackedChange[] = (options.tracked ?? []).map((t) => ({ ...t }));
  const edits: ModelEdit[] = [];
  const created: Mock[] = [];
  let failure: WordError | undefined;
  const sets = new Set(options.sets ?? ['WordApi 1.1', 'WordApi 1.2', 'WordApi 1.3', 'WordApi 1.4']);

  const mock = (seed: Record<string, unknown>): Mock => {
    const m = new OfficeMockObject(seed) as Mock;
    created.push(m);
    return m;
  };
  const paragraphSpans = () => {
    const spans: { start: number; end: number }[] = [];
    let at = 0;
    for (const p of body.split('\r')) {
      spans.push({ start: at, end: at + p.length });
      at += p.length + 1;
    }
    return spans;
  };
  const edit = (kind: ModelEdit['kind'], start: number, end: number, inserted: string) => {
    edits.push({
      kind,
      at: start,
      removed: body.slice(start, end),
      inserted,
      trackingMode: String(root.context.document.changeTrackingMode),
    });
    body = body.slice(0, start) + inserted + body.slice(end);
  };
  const searchedText = (search: string) =>
    search.replace(/\^(\^|t|l)/g, (_, c) => ({ '^': '^', t: '\t', l: '\v' })[c as '^']);

  const spans = new WeakMap<object, { start: number; end: number }>();
  const range = (start: number, end: number): Mock => {
    const r: Mock = mock({
      text: body.slice(start, end),
      getRange: (location: string) => {
        if (location === 'Start') return range(start, start);
        if (location === 'End') return range(end, end);
        return range(start, end);
      },
      expandTo: (other: Mock) => {
        const o = spans.get(other);
        if (!o) throw new Error('expandTo: not a range of this document');
        return range(Math.min(start, o.start), Math.max(end, o.end));
      },
      insertComment: (content: string) => {
        if (options.refuseComments) {
          failure = new WordError(options.refuseComments, 'The action isn’t supported.');
          return mock({});
        }
        comments.push({ content, start, end, anchored: body.slice(start, end) });
        return mock({ content });
      },
      insertText: (text: string, location: string) => {
        if (location === 'Replace') edit('replace', start, end, text);
        else if (location === 'Start' || location === 'Before') edit('insert', start, start, text);
        else edit('insert', end, end, text);
        return range(start, start + text.length);
      },
      delete: () => edit('delete', start, end, ''),
    });
    spans.set(r, { start, end });
    return r;
  };
  const search = (start: number, end: number, text: string, matchCase: boolean): Mock => {
    const needle = searchedText(text);
    const hay = body.slice(start, end);
    const [h, n] = matchCase ? [hay, needle] : [hay.toLowerCase(), needle.toLowerCase()];
    const found: Mock[] = [];
    for (let i = h.indexOf(n); n !== '' && i >= 0; i = h.indexOf(n, i + n.length)) {
      found.push(range(start + i, start + i + n.length));
    }
    return mock({ items: found });
  };

  const paragraphCollection = () => {
    const items = paragraphSpans().map(({ start, end }) => ({
      text: body.slice(start, end),
      search: (text: string, o: { matchCase?: boolean } = {}) =>
        search(start, end, text, o.matchCase === true),
      getRange: (location: string) => {
        if (location === 'Start') return range(start, start);
        if (location === 'End' || location === 'After') return range(end + 1, end + 1);
        return range(start, end);
      },
    }));
    return items;
  };

  const root = new OfficeMockObject({
    context: {
      document: {
        changeTrackingMode: options.trackingMode ?? 'Off',
        body: {
          paragraphs: { items: [] },
          getComments: () => mock({ items: comments.map((c) => ({ content: c.content })) }),
          // A decided change leaves the collection, as Word's does.
          getTrackedChanges: () =>
            mock({
              items: tracked
                .filter((t) => !t.decided)
                .map((t) => ({
                  author: t.author,
                  type: t.type,
                  text: t.text,
                  accept: () => {
                    t.decided = 'accepted';
                  },
                  reject: () => {
                    t.decided = 'rejected';
                  },
                })),
            }),
        },
      },
    },
  }) as unknown as {
    context: Mock & { document: Mock & { changeTrackingMode: unknown; body: Mock & { paragraphs: Mock } } };
  };
  const context = root.context;
  const bodyMock = context.document.body;
  // Each Word.run reads the body afresh, as a new request context would.
  const refreshParagraphs = () => {
    (bodyMock.paragraphs as unknown as Settable).setValue('items', paragraphCollection());
  };
  (context as unknown as Settable).setValue('sync', async () => {
    if (failure) {
      const f = failure;
      failure = undefined;
      throw f;
    }
    await OfficeMockObject.prototype.sync.call(context);
    for (const m of created) await m.sync();
  });

  const run = (async (batch: (c: unknown) => Promise<unknown>) => {
    refreshParagraphs();
    return batch(context);
  }) as unknown as WordRun;
  const requirements: Requirements = {
    isSetSupported: (name, version) => sets.has(`${name} ${version ?? '1.1'}`),
  };
  return {
    run,
    requirements,
    /** The body's text now, paragraphs joined by '\r'. */
    text: () => body,
    comments,
    edits,
    /** The document's tracked changes, each with what was decided of it. */
    tracked,
    /** The document's change tracking mode now. */
    trackingMode: () => String(context.document.changeTrackingMode),
  };
}
