/**
 * The steps a Cognito user pool may ask for after the password: choosing a new password,
 * setting up an authenticator app (its secret key to type, or its `otpauth://` link), and the
 * app's code. Each is one labelled form; Enter submits it, errors go to its live region, and
 * "Start over" goes back to the name and password.
 */
import { errorBox, h } from '../dom.js';
import { SignInError, type SignInStep } from '../session.js';

type Challenge = Exclude<SignInStep, { kind: 'done' }>;

/** The secret key in groups of four, as authenticator apps let people type it. */
export function groupedSecret(secret: string): string {
  return (secret.match(/.{1,4}/g) ?? []).join(' ');
}

function codeField(id: string): { field: HTMLElement; input: HTMLInputElement } {
  const input = h('input', {
    id,
    name: 'code',
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9 ]{6,7}',
    maxlength: 7,
    required: true,
    'aria-describedby': `${id}-hint`,
  });
  const field = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, 'Code from your authenticator app'),
    input,
    h('p', { class: 'hint', id: `${id}-hint` }, 'Six digits; it changes every 30 seconds.'),
  );
  return { field, input };
}

function passwordField(id: string, label: string): { field: HTMLElement; input: HTMLInputElement } {
  const input = h('input', { id, type: 'password', autocomplete: 'new-password', required: true });
  return { field: h('div', { class: 'field' }, h('label', { for: id }, label), input), input };
}

/** What each challenge shows above its fields, and its fields. */
function parts(step: Challenge, who: string) {
  if (step.kind === 'new-password') {
    const first = passwordField('np-password', 'New password');
    const again = passwordField('np-confirm', 'New password again');
    return {
      title: 'Choose your password',
      intro: [
        h(
          'p',
          {},
          `This is the first sign-in of ${who}: choose a password of your own to replace the temporary one.`,
        ),
      ],
      fields: [first.field, again.field],
      value: () => {
        if (first.input.value !== again.input.value)
          throw new SignInError('the two passwords are not the same', { kind: 'cognito' });
        return first.input.value;
      },
      submit: 'Set password',
    };
  }
  const code = codeField(step.kind === 'mfa-setup' ? 'mfa-setup-code' : 'mfa-code');
  if (step.kind === 'mfa-code') {
    return {
      title: 'Enter your code',
      intro: [h('p', {}, `Open the authenticator app where you set up ${who}.`)],
      fields: [code.field],
      value: () => code.input.value,
      submit: 'Verify',
    };
  }
  return {
    title: 'Set up your authenticator app',
    intro: [
      h(
        'p',
        {},
        'Signing in needs a code from an authenticator app as well as your password. In the app, add an account with this secret key (time-based), or open the link on a device that has the app:',
      ),
      h('p', {}, h('code', { id: 'mfa-secret', class: 'secret' }, groupedSecret(step.secret))),
      h('p', { class: 'small' }, h('a', { href: step.uri, id: 'mfa-uri' }, step.uri)),
      h('p', {}, 'Then enter the code the app shows.'),
    ],
    fields: [code.field],
    value: () => code.input.value,
    submit: 'Verify and sign in',
  };
}

/** The form of one challenge; `next` gets the step its answer leads to. */
export function challengeForm(
  step: Challenge,
  who: string,
  next: (step: SignInStep) => void,
  startOver: () => void,
): HTMLElement {
  const p = parts(step, who);
  const out = h('div', { 'aria-live': 'assertive' });
  const button = h('button', { type: 'submit' }, p.submit);
  const again = h('button', { type: 'button', class: 'link' }, 'Start over');
  again.addEventListener('click', startOver);
  const form = h('form', { class: 'sign-in', 'aria-labelledby': 'ch-title' }, ...p.fields, button, out);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      next(await step.answer(p.value()));
    } catch (error) {
      out.replaceChildren(errorBox(error));
    } finally {
      button.disabled = false;
    }
  });
  return h(
    'section',
    { 'aria-labelledby': 'ch-title', 'data-challenge': step.kind },
    h('h1', { id: 'ch-title', tabindex: '-1' }, p.title),
    ...p.intro,
    form,
    h('p', {}, again),
  );
}
