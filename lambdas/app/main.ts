/**
 * The reviewer app: sign in, then the jobs, a new review, and one job at a time, routed by the
 * URL's hash (`#/jobs`, `#/new`, `#/jobs/<id>`) so links, Back and bookmarks work.
 */
import { AppApi } from './api.js';
import { type AppConfig, readAppConfig } from './config.js';
import { errorBox, h } from './dom.js';
import type { Session } from './session.js';
import type { View, ViewContext } from './views/context.js';
import { jobView } from './views/job.js';
import { jobsView } from './views/jobs.js';
import { signInView } from './views/sign-in.js';
import { uploadView } from './views/upload.js';

const main = () => document.getElementById('main') as HTMLElement;

function route(ctx: ViewContext): View {
  const hash = location.hash.replace(/^#\/?/, '');
  const job = /^jobs\/([a-z0-9-]+)$/.exec(hash)?.[1];
  if (job) return jobView(ctx, job);
  if (hash === 'new') return uploadView(ctx);
  return jobsView(ctx);
}

function nav(session: Session, signOut: () => void): HTMLElement {
  const out = h('button', { type: 'button', class: 'link' }, 'Sign out');
  out.addEventListener('click', signOut);
  return h(
    'nav',
    { 'aria-label': 'Main' },
    h(
      'ul',
      {},
      h('li', {}, h('a', { href: '#/jobs' }, 'Your jobs')),
      h('li', {}, h('a', { href: '#/new' }, 'Review a contract')),
    ),
    h('span', { class: 'who' }, `Signed in as ${session.who} `, out),
  );
}

function start(config: AppConfig): void {
  const header = document.getElementById('nav') as HTMLElement;
  let current: View | undefined;
  let ctx: ViewContext | undefined;
  const show = (focus: boolean) => {
    current?.stop();
    if (!ctx) return;
    current = route(ctx);
    main().replaceChildren(current.element);
    // After a route change, focus goes to the new view's heading, as a page load would.
    if (focus) current.element.querySelector<HTMLElement>('h1')?.focus();
  };
  let session: Session | undefined;
  const signedIn = (s: Session) => {
    session = s;
    ctx = {
      config,
      submitted: [],
      api: new AppApi({ url: config.apiUrl, region: config.region, credentials: s.credentials }),
      go: (hash) => {
        location.hash = hash;
      },
    };
    header.replaceChildren(nav(s, () => void signOut()));
    show(true);
  };
  // Signing out forgets every credential (a Cognito sign-in's refresh token is revoked first);
  // should the revocation fail, the sign-in form says so.
  const signOut = async () => {
    current?.stop();
    ctx = undefined;
    const ending = session;
    session = undefined;
    header.replaceChildren();
    const form = signInView(config, signedIn);
    main().replaceChildren(form);
    try {
      await ending?.signOut();
    } catch (error) {
      form.prepend(errorBox(error));
    }
  };
  window.addEventListener('hashchange', () => {
    // In-page links (the skip link's #main) are not routes.
    if (location.hash === '' || location.hash.startsWith('#/')) show(true);
  });
  void signOut();
}

async function boot(): Promise<void> {
  try {
    const r = await fetch('config.json', { cache: 'no-store' });
    if (!r.ok) throw new Error(`config.json: HTTP ${r.status}`);
    start(readAppConfig(await r.json()));
  } catch (error) {
    main().replaceChildren(errorBox(error));
  }
}

void boot();
