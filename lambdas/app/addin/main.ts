/// <reference types="office-js" />
/**
 * The task pane's entry point (taskpane.html). In Word, office.js (loaded from Microsoft's CDN
 * before this script, as Microsoft requires) says when Office is ready, and the pane starts with
 * Office as its host. Opened anywhere else, the page says it belongs in Word, and
 * `clauseReviewAddin.start(host)` starts it with a host of the caller's (a test's).
 */
import { type AppConfig, readAppConfig } from '../config.js';
import { errorBox, h } from '../dom.js';
import { type AddinHost, officeHost } from './host.js';
import { startPane } from './taskpane.js';

const main = () => document.getElementById('main') as HTMLElement;
const header = () => document.getElementById('nav') as HTMLElement;

async function config(): Promise<AppConfig> {
  const r = await fetch('../config.json', { cache: 'no-store' });
  if (!r.ok) throw new Error(`config.json: HTTP ${r.status}`);
  return readAppConfig(await r.json());
}

/** Starts the pane with `host`; shows what went wrong instead when it cannot. */
async function start(host: AddinHost): Promise<void> {
  try {
    startPane(host, await config(), main(), header());
  } catch (error) {
    main().replaceChildren(errorBox(error));
  }
}

async function boot(): Promise<void> {
  const office = (globalThis as { Office?: typeof Office }).Office;
  const info = office?.onReady ? await office.onReady() : undefined;
  if (office && info?.host === office.HostType.Word) {
    await start(officeHost(office, (globalThis as { Word?: typeof Word }).Word as typeof Word));
    return;
  }
  (globalThis as { clauseReviewAddin?: unknown }).clauseReviewAddin = { start };
  main().replaceChildren(
    h(
      'p',
      { id: 'not-in-word' },
      'This is the clause-review add-in for Word: open it from Word (Home › Review contract) once the add-in is installed.',
    ),
  );
}

void boot();
