/** What every view of the Word add-in's pane shares once the person is signed in. */
import type { AppApi } from '../api.js';
import type { AppConfig } from '../config.js';
import type { AddinHost } from './host.js';
import type { PaneSession } from './sign-in-message.js';

/** Everything the pane's views share once signed in. */
export interface PaneContext {
  readonly host: AddinHost;
  readonly config: AppConfig;
  readonly api: AppApi;
  readonly session: PaneSession;
  /** Shows a view in the pane, its heading focused. */
  readonly show: (view: HTMLElement, stop?: () => void) => void;
  readonly signOut: (why?: string) => void;
}
