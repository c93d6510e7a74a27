/**
 * The sign-in form; what it asks for depends on how the stack signs people in. After the name
 * and password, the user pool may ask for more (a first sign-in chooses a password and sets up
 * an authenticator app; later ones give the app's code): each such step replaces the form, with
 * its heading focused, and its errors are announced where the step's fields are.
 */
import type { AppConfig } from '../config.js';
import { errorBox, h } from '../dom.js';
import { type Session, type SignInStep, signIn, signInLabels } from '../session.js';
import { challengeForm } from './sign-in-challenge.js';

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
  const section = h(
    'section',
    { 'aria-labelledby': 'si-title' },
    h('h1', { id: 'si-title', tabindex: '-1' }, 'Sign in'),
    config.signIn.kind === 'keys' && config.signIn.hint
      ? h('p', { class: 'hint' }, config.signIn.hint)
      : null,
    form,
  );
  const startOver = () => {
    secret.value = '';
    out.replaceChildren();
    view.replaceChildren(section);
    name.focus();
  };
  const show = (step: SignInStep) => {
    if (step.kind === 'done') {
      done(step.session);
      return;
    }
    view.replaceChildren(challengeForm(step, name.value.trim(), show, startOver));
    view.querySelector<HTMLElement>('h1')?.focus();
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const step = await signIn(config.signIn, { name: name.value, secret: secret.value }, config.region);
      // The password is not kept once Cognito has it.
      secret.value = '';
      show(step);
    } catch (error) {
      out.replaceChildren(errorBox(error));
    }
  });
  const view = h('div', { class: 'sign-in-flow' }, section);
  return view;
}
