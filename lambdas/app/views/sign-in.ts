/** The sign-in form; what it asks for depends on how the stack signs people in. */
import type { AppConfig } from '../config.js';
import { errorBox, h } from '../dom.js';
import { type Session, signIn, signInLabels } from '../session.js';

/** The form; `done` gets the session once sign-in succeeds. */
export function signInView(config: AppConfig, done: (session: Session) => void): HTMLElement {
  const labels = signInLabels(config.signIn);
  const name = h('input', {
    id: 'si-name',
    name: 'name',
    type: 'text',
    autocomplete: 'username',
    required: true,
  });
  const secret = h('input', {
    id: 'si-secret',
    name: 'secret',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const out = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'sign-in' },
    h('div', { class: 'field' }, h('label', { for: 'si-name' }, labels.name), name),
    h('div', { class: 'field' }, h('label', { for: 'si-secret' }, labels.secret), secret),
    h('button', { type: 'submit' }, 'Sign in'),
    out,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      done(await signIn(config.signIn, { name: name.value, secret: secret.value }, config.region));
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  return h(
    'section',
    { 'aria-labelledby': 'si-title' },
    h('h1', { id: 'si-title', tabindex: '-1' }, 'Sign in'),
    config.signIn.kind === 'keys' && config.signIn.hint
      ? h('p', { class: 'hint' }, config.signIn.hint)
      : null,
    form,
  );
}
