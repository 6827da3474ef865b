/**
 * Entry module of the search console: mounts {@link App} into `#app` (replacing the page's
 * "Loading" note). Served by coordinator/http/routes/console-routes.ts; the bare specifiers resolve
 * through the page's import map to the vendor modules the coordinator serves (no build step, no CDN).
 */
import { render } from 'preact';
import { App } from './app.js';
import { html } from './html.js';

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
root.replaceChildren();
render(html`<${App} />`, root);
