/**
 * The add-in's Office seam (lambdas/app/addin/host.ts) and what the sign-in dialog hands the
 * pane (sign-in-message.ts): the document read in slices and its file always closed, Office's
 * dialog refusals named, the document's name, credentials kept until they expire, and the
 * dialog's own sign-in ended before it hands them over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentNameOf, openDialog, readCompressed } from '../../../lambdas/app/addin/host.js';
import { recordRedlineDecision, redlinesOf } from '../../../lambdas/app/addin/redlines.js';
import {
  handOver,
  isSignInEndedError,
  readSignInMessage,
  signInMessage,
} from '../../../lambdas/app/addin/sign-in-message.js';
import { AppApiError, type ReportClause } from '../../../lambdas/app/api.js';
import { isSignInError, SignInError, signIn } from '../../../lambdas/app/session.js';

const OFFICE_ENUMS = {
  FileType: { Compressed: 'compressed' },
  AsyncResultStatus: { Succeeded: 'succeeded', Failed: 'failed' },
  EventType: { DialogMessageReceived: 'dialogMessageReceived', DialogEventReceived: 'dialogEventReceived' },
};
const globals = globalThis as { Office?: unknown };
beforeAll(() => {
  globals.Office = OFFICE_ENUMS;
});
afterAll(() => {
  delete globals.Office;
});

const ok = <T>(value: T) => ({ status: 'succeeded', value }) as unknown as Office.AsyncResult<T>;
const failed = (code: number, message: string) =>
  ({ status: 'failed', error: { code, message } }) as unknown as Office.AsyncResult<never>;

/** Office's document with a file of `slices`, failing at slice `failAt`; records the calls. */
function officeDocument(slices: number[][], failAt = -1) {
  const calls: string[] = [];
  const document = {
    getFileAsync: (
      type: string,
      options: { sliceSize: number },
      cb: (r: Office.AsyncResult<Office.File>) => void,
    ) => {
      calls.push(`getFileAsync ${type} ${options.sliceSize}`);
      cb(
        ok({
          size: slices.flat().length,
          sliceCount: slices.length,
          getSliceAsync: (i: number, done: (r: Office.AsyncResult<Office.Slice>) => void) => {
            calls.push(`slice ${i}`);
            done(
              i === failAt
                ? failed(5001, 'internal error')
                : ok({ data: slices[i], index: i, size: slices[i]?.length }),
            );
          },
          closeAsync: (done: () => void) => {
            calls.push('close');
            done();
          },
        } as unknown as Office.File),
      );
    },
  } as unknown as Office.Document;
  return { document, calls };
}

describe('readCompressed', () => {
  it('reads the .docx in slices, in order, and closes the file', async () => {
    const { document, calls } = officeDocument([[80, 75], [3, 4], [9]]);
    expect([...(await readCompressed(document, 2))]).toEqual([80, 75, 3, 4, 9]);
    expect(calls).toEqual(['getFileAsync compressed 2', 'slice 0', 'slice 1', 'slice 2', 'close']);
  });

  it('closes the file when a slice fails, and says which', async () => {
    const { document, calls } = officeDocument([[1], [2], [3]], 1);
    await expect(readCompressed(document)).rejects.toThrow(
      'getSliceAsync(1) failed: internal error (code 5001)',
    );
    expect(calls.at(-1)).toBe('close');
  });
});

describe('openDialog', () => {
  const office = (
    open: (url: string, options: unknown, cb: (r: Office.AsyncResult<unknown>) => void) => void,
    dialogOrigin = true,
  ) =>
    ({
      ...OFFICE_ENUMS,
      context: {
        ui: { displayDialogAsync: open },
        requirements: { isSetSupported: (set: string) => set === 'DialogOrigin' && dialogOrigin },
      },
    }) as unknown as typeof Office;

  /** A dialog opened on the sign-in page; `send` delivers a message as Office would. */
  function opened(dialogOrigin = true) {
    const handlers = new Map<string, (arg: unknown) => void>();
    let closed = false;
    const message = openDialog(
      office(
        (_url, _options, cb) =>
          cb(
            ok({
              addEventHandler: (t: string, h: (a: unknown) => void) => handlers.set(t, h),
              close: () => (closed = true),
            }),
          ),
        dialogOrigin,
      ),
      'https://d1.cloudfront.net/addin/sign-in.html',
    );
    const settled = { value: undefined as string | undefined };
    void message.then((m) => (settled.value = m));
    return {
      message,
      settled,
      closed: () => closed,
      send: (m: string, origin: string | undefined) =>
        handlers.get('dialogMessageReceived')?.({ message: m, origin }),
    };
  }

  it("ignores a message from another origin than the sign-in page's, and takes the page's own", async () => {
    const dialog = opened();
    dialog.send('stolen', 'https://evil.example');
    dialog.send('stolen', 'https://d1.cloudfront.net.evil.example');
    dialog.send('no origin', undefined);
    await new Promise((r) => setTimeout(r, 0));
    expect([dialog.settled.value, dialog.closed()]).toEqual([undefined, false]);
    dialog.send('signed in', 'https://d1.cloudfront.net');
    expect(await dialog.message).toBe('signed in');
    expect(dialog.closed()).toBe(true);
  });

  it('takes a message without an origin only from a client that names none (no DialogOrigin 1.1)', async () => {
    const dialog = opened(false);
    dialog.send('signed in', undefined);
    expect(await dialog.message).toBe('signed in');
  });

  it("resolves with the dialog's message and closes it; opens it in a window of its own", async () => {
    const handlers = new Map<string, (arg: unknown) => void>();
    let closed = false;
    let opened: unknown;
    const message = openDialog(
      office((_url, options, cb) => {
        opened = options;
        cb(
          ok({
            addEventHandler: (t: string, h: (a: unknown) => void) => handlers.set(t, h),
            close: () => (closed = true),
          }),
        );
      }),
      'https://d1.cloudfront.net/addin/sign-in.html',
    );
    handlers.get('dialogMessageReceived')?.({ message: 'hello', origin: 'https://d1.cloudfront.net' });
    expect(await message).toBe('hello');
    expect(closed).toBe(true);
    expect(opened).toMatchObject({ displayInIframe: false });
  });

  it('names why Office would not open it, and a window closed by the person', async () => {
    await expect(
      openDialog(
        office((_u, _o, cb) => cb(failed(12005, 'x'))),
        'http://x/',
      ),
    ).rejects.toThrow('sign-in could not start: the sign-in page must be served over HTTPS (12005)');
    const handlers = new Map<string, (arg: unknown) => void>();
    const closing = openDialog(
      office((_u, _o, cb) =>
        cb(
          ok({
            addEventHandler: (t: string, h: (a: unknown) => void) => handlers.set(t, h),
            close: () => {},
          }),
        ),
      ),
      'https://x/',
    );
    handlers.get('dialogEventReceived')?.({ error: 12006 });
    await expect(closing).rejects.toThrow('the sign-in window was closed');
  });
});

describe('the sign-in message', () => {
  it('carries the person and their credentials, which the pane gives up shortly before they expire', async () => {
    let now = Date.parse('2026-11-28T10:00:00Z');
    const expiration = new Date('2026-11-28T11:00:00Z');
    const text = signInMessage('ada@example.com', {
      accessKeyId: 'ASIA1',
      secretAccessKey: 's',
      sessionToken: 't',
      expiration,
    });
    const session = readSignInMessage(text, () => now);
    expect(session.who).toBe('ada@example.com');
    expect(await session.credentials()).toEqual({
      accessKeyId: 'ASIA1',
      secretAccessKey: 's',
      sessionToken: 't',
      expiration,
    });
    now = Date.parse('2026-11-28T10:59:30Z');
    const ended = await session.credentials().catch((e: unknown) => e);
    expect(isSignInEndedError(ended)).toBe(true);
    expect(() => readSignInMessage('{"kind":"other"}')).toThrow(/not a sign-in/);
    expect(() => readSignInMessage('not json')).toThrow(/not a sign-in/);
  });

  it("is sent once the dialog's own session is signed out, with the credentials it held", async () => {
    const step = await signIn({ kind: 'keys' }, { name: 'AKIDEXAMPLE', secret: 'wJalr' });
    if (step.kind !== 'done') throw new Error(`expected a session, got ${step.kind}`);
    const { session } = step;
    let sent = '';
    let atSend: Promise<string> | undefined;
    const failure = await handOver(session, (message) => {
      sent = message;
      atSend = session.credentials().then(
        () => 'signed in',
        () => 'signed out',
      );
    });
    expect(failure).toBeUndefined();
    expect(await atSend).toBe('signed out');
    expect(await readSignInMessage(sent).credentials()).toEqual({
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalr',
    });
    const after = await session.credentials().catch((e: unknown) => e);
    expect(isSignInError(after)).toBe(true);
  });

  it('is sent even when the revocation fails, which is returned for the dialog to say', async () => {
    const step = await signIn({ kind: 'keys' }, { name: 'AKIDEXAMPLE', secret: 'wJalr' });
    if (step.kind !== 'done') throw new Error(`expected a session, got ${step.kind}`);
    const refused = new SignInError('signed out here, but Cognito did not revoke the sign-in: offline', {
      kind: 'cognito',
    });
    const sent: string[] = [];
    const failure = await handOver(
      {
        ...step.session,
        signOut: async () => {
          await step.session.signOut();
          throw refused;
        },
      },
      (message) => sent.push(message),
    );
    expect(failure).toBe(refused);
    expect(sent.map((m) => readSignInMessage(m).who)).toEqual(['AKIDEXAMPLE']);
  });

  it('names the document after its file, or a stand-in for a new one', () => {
    expect(
      documentNameOf('https://contoso.sharepoint.com/sites/legal/Shared%20Documents/MSA%202026.docx?web=1'),
    ).toBe('MSA 2026.docx');
    expect(documentNameOf('C:\\Users\\ada\\Documents\\nda.DOCX')).toBe('nda.DOCX');
    expect(documentNameOf('')).toBe('document.docx');
    expect(documentNameOf(undefined)).toBe('document.docx');
  });
});

describe('redlines in the pane', () => {
  it("are read from a clause's positions, none without a playbook", () => {
    const redline = {
      id: 'c-2/redline/payment',
      clauseId: 'c-2',
      edits: [{ start: 0, end: 2, insert: '60' }],
    };
    const clause = { id: 'c-2', positions: [{ redline }, {}] } as unknown as ReportClause;
    expect(redlinesOf(clause)).toEqual([redline]);
    expect(redlinesOf({ id: 'c-1' } as unknown as ReportClause)).toEqual([]);
  });

  it('records a decision through POST /jobs/{id}/redlines, and says what is left to decide', async () => {
    const sent: unknown[][] = [];
    const answers = [
      { jobId: 'j-1', recorded: [], undecided: 2, reviewClosed: false },
      { jobId: 'j-1', recorded: [], undecided: 0, reviewClosed: true },
    ];
    const api = {
      decideRedlines: async (...args: unknown[]) => {
        sent.push(args);
        return answers.shift() as (typeof answers)[number];
      },
    };
    expect(await recordRedlineDecision(api, 'j-1', 'c-2/redline/payment', 'accepted')).toBe(
      "Accepted, recorded in the job's trail; 2 item(s) of the review still to decide.",
    );
    expect(await recordRedlineDecision(api, 'j-1', 'c-3/redline/term', 'rejected')).toBe(
      "Rejected, recorded in the job's trail; nothing is left to decide: the report is being written.",
    );
    expect(sent).toEqual([
      ['j-1', { redlines: ['c-2/redline/payment'], decision: 'accept' }],
      ['j-1', { redlines: ['c-3/redline/term'], decision: 'reject' }],
    ]);
  });

  it("passes the API's refusal on, with its status", async () => {
    const closed = new AppApiError('the review of j-1 has closed', 409, {
      method: 'POST',
      path: 'jobs/j-1/redlines',
    });
    const api = {
      decideRedlines: async () => {
        throw closed;
      },
    };
    await expect(recordRedlineDecision(api, 'j-1', 'c-2/redline/payment', 'accepted')).rejects.toBe(closed);
  });
});
