/// <reference types="office-js" />
/**
 * The one seam between the task pane and Office: the open document's bytes, the sign-in dialog,
 * and the Word document the add-in writes comments and redlines into. In Word it is
 * {@link officeHost}, over Office.js; a test gives the pane one of its own.
 */

import {
  type ChangeDecision,
  type DecidedChange,
  type DecisionOutcome,
  TheirChangesInWord,
} from './their-changes.js';
import type {
  ClauseComment,
  CommentOutcome,
  CommentSupport,
  RedlineOutcome,
  RedlineToApply,
} from './word-document.js';
import { WordDocument } from './word-document.js';

/** What the pane does to the open document. */
export interface WordSide {
  support(): CommentSupport;
  /** The ids of the clauses that already have this job's comment. */
  commented(jobId: string): Promise<Set<string>>;
  /** The jobs whose comments the document holds. */
  commentedJobs(): Promise<string[]>;
  comment(jobId: string, clauses: readonly ClauseComment[]): Promise<CommentOutcome[]>;
  applyRedline(clauseText: string, redline: RedlineToApply): Promise<RedlineOutcome>;
  applyRedlines(
    redlines: readonly { readonly clauseText: string; readonly redline: RedlineToApply }[],
  ): Promise<RedlineOutcome[]>;
}

/** The other side's tracked changes in the open document, decided one change at a time. */
export interface ChangesSide {
  support(): CommentSupport;
  decide(change: DecidedChange, decision: ChangeDecision): Promise<DecisionOutcome>;
}

/** Office, as the pane uses it. */
export interface AddinHost {
  /** The open document's name (`msa.docx`), or a stand-in when Word gives none (a new document). */
  documentName(): string;
  /** The open document as a .docx file. */
  readDocument(): Promise<Uint8Array>;
  /**
   * Opens `url` (a page of the pane's own origin) in Office's dialog and resolves with the one
   * message it sends; rejects when the person closes it or Office cannot open it.
   */
  openDialog(url: string): Promise<string>;
  readonly word: WordSide;
  readonly changes: ChangesSide;
}

/** Slices of the document read at a time: Office allows up to 4 MB. */
const SLICE_BYTES = 1024 * 1024;

/** An Office.js call's failure as an Error naming the call. */
function failed(call: string, result: Office.AsyncResult<unknown>): Error {
  return new Error(
    `${call} failed: ${result.error?.message ?? 'no reason given'} (code ${result.error?.code})`,
  );
}

/**
 * Reads the open document with `getFileAsync` (compressed: the .docx bytes) slice by slice, and
 * always closes the file: Office keeps at most two open, and refuses a third.
 * https://learn.microsoft.com/javascript/api/office/office.document#office-office-document-getfileasync-member(1)
 */
export function readCompressed(document: Office.Document, sliceSize = SLICE_BYTES): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    document.getFileAsync(Office.FileType.Compressed, { sliceSize }, (opened) => {
      if (opened.status !== Office.AsyncResultStatus.Succeeded) return reject(failed('getFileAsync', opened));
      const file = opened.value;
      const parts: Uint8Array[] = [];
      const close = (done: () => void) => file.closeAsync(() => done());
      const next = (index: number) => {
        if (index >= file.sliceCount) {
          const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          let at = 0;
          for (const p of parts) {
            all.set(p, at);
            at += p.length;
          }
          return close(() => resolve(all));
        }
        file.getSliceAsync(index, (slice) => {
          if (slice.status !== Office.AsyncResultStatus.Succeeded) {
            return close(() => reject(failed(`getSliceAsync(${index})`, slice)));
          }
          parts.push(new Uint8Array(slice.value.data as number[]));
          next(index + 1);
        });
      };
      next(0);
    });
  });
}

/** Why Office could not open the dialog, for the codes it documents. */
const DIALOG_ERRORS: Record<number, string> = {
  12004: "the sign-in page's domain is not trusted: it must be the add-in's own",
  12005: 'the sign-in page must be served over HTTPS',
  12007: 'a dialog of this add-in is already open: close it first',
  12009: 'the person chose not to open the dialog',
};

/**
 * Whether a dialog's message comes from the page the pane opened. A dialog may navigate to any
 * HTTPS site once its first page has loaded, and any page in it may call `messageParent`
 * (https://learn.microsoft.com/office/dev/add-ins/develop/dialog-best-practices), so the message
 * counts only when Office names its origin as the sign-in page's own. A client without the
 * DialogOrigin 1.1 requirement set names no origin
 * (https://learn.microsoft.com/javascript/api/office/office.dialog): there the message is taken
 * as the only one that client can deliver, that of the add-in's own domain.
 */
export function fromOwnPage(office: typeof Office, pageOrigin: string, origin: string | undefined): boolean {
  if (origin !== undefined) return origin === pageOrigin;
  return !office.context.requirements.isSetSupported('DialogOrigin', '1.1');
}

/**
 * Opens the sign-in page in Office's dialog (a window of its own, never an iframe: identity
 * pages refuse to be framed) and waits for its `messageParent`; a message from any other origin
 * is ignored ({@link fromOwnPage}).
 * https://learn.microsoft.com/office/dev/add-ins/develop/auth-with-office-dialog-api
 */
export function openDialog(office: typeof Office, url: string): Promise<string> {
  const pageOrigin = new URL(url).origin;
  return new Promise((resolve, reject) => {
    office.context.ui.displayDialogAsync(url, { height: 70, width: 30, displayInIframe: false }, (opened) => {
      if (opened.status !== Office.AsyncResultStatus.Succeeded) {
        const code = opened.error?.code ?? 0;
        return reject(
          new Error(`sign-in could not start: ${DIALOG_ERRORS[code] ?? opened.error?.message} (${code})`),
        );
      }
      const dialog = opened.value;
      dialog.addEventHandler(Office.EventType.DialogMessageReceived, (arg) => {
        const { message, origin } = arg as { message: string; origin: string | undefined };
        if (!fromOwnPage(office, pageOrigin, origin)) return;
        dialog.close();
        resolve(message);
      });
      dialog.addEventHandler(Office.EventType.DialogEventReceived, (arg) => {
        const code = (arg as { error: number }).error;
        reject(
          new Error(code === 12006 ? 'the sign-in window was closed' : `the sign-in window failed (${code})`),
        );
      });
    });
  });
}

/** The last part of the document's URL when it names a .docx, else a stand-in name. */
export function documentNameOf(url: string | undefined): string {
  const last = decodeURIComponent((url ?? '').split(/[\\/]/).at(-1)?.split('?')[0] ?? '');
  return /\.docx$/i.test(last) ? last : 'document.docx';
}

/** Office.js in Word as the pane's host. */
export function officeHost(office: typeof Office, word: typeof Word): AddinHost {
  const doc = new WordDocument((batch) => word.run(batch), office.context.requirements);
  return {
    documentName: () => documentNameOf(office.context.document.url),
    readDocument: () => readCompressed(office.context.document),
    openDialog: (url) => openDialog(office, url),
    word: doc,
    changes: new TheirChangesInWord((batch) => word.run(batch), office.context.requirements),
  };
}
