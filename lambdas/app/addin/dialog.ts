/// <reference types="office-js" />
/**
 * The sign-in page Office's dialog opens (sign-in.html, on the task pane's own origin): the
 * reviewer app's sign-in form, with its first-sign-in and authenticator steps, against the
 * stack's user pool. Once signed in, the temporary credentials go to the pane with
 * `messageParent`, the dialog's own sign-in is ended first (its refresh token revoked), and the
 * dialog is closed by the pane; the page keeps nothing.
 */
import { type AppConfig, readAppConfig } from '../config.js';
import { errorBox, h } from '../dom.js';
import type { Session } from '../session.js';
import { signInView } from '../views/sign-in.js';
import { handOver } from './sign-in-message.js';

const main = () => document.getElementById('main') as HTMLElement;

/**
 * Office's `messageParent`, once office.js is ready; undefined outside an Office dialog. Where
 * the client takes a target origin (DialogOrigin 1.1), the message is for the pane on this
 * page's own origin and no other.
 * https://learn.microsoft.com/javascript/api/office/office.dialogmessageoptions
 */
function messageParent(): ((message: string) => void) | undefined {
  const office = (globalThis as { Office?: typeof Office }).Office;
  const ui = office?.context?.ui;
  if (!ui?.messageParent) return undefined;
  const targeted = office?.context?.requirements?.isSetSupported('DialogOrigin', '1.1') === true;
  return (message) =>
    targeted ? ui.messageParent(message, { targetOrigin: location.origin }) : ui.messageParent(message);
}

function start(config: AppConfig): void {
  const done = async (session: Session) => {
    try {
      const send = messageParent();
      if (!send) throw new Error('this page is the add-in’s sign-in window: open it from the add-in in Word');
      const notRevoked = await handOver(session, send);
      main().replaceChildren(
        h('p', { role: 'status' }, `Signed in as ${session.who}. This window closes now.`),
        ...(notRevoked === undefined ? [] : [errorBox(notRevoked)]),
      );
    } catch (error) {
      main().replaceChildren(errorBox(error));
    }
  };
  main().replaceChildren(signInView(config, (session) => void done(session)));
  main().querySelector<HTMLElement>('h1')?.focus();
}

async function boot(): Promise<void> {
  try {
    const office = (globalThis as { Office?: typeof Office }).Office;
    if (office?.onReady) await office.onReady();
    const r = await fetch('../config.json', { cache: 'no-store' });
    if (!r.ok) throw new Error(`config.json: HTTP ${r.status}`);
    start(readAppConfig(await r.json()));
  } catch (error) {
    main().replaceChildren(errorBox(error));
  }
}

void boot();
