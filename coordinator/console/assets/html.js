/**
 * The console's template tag: htm bound to preact's `h`, so components are written as tagged
 * templates (JSX-like, parsed in the browser, no build step).
 * @see github.com/developit/htm (links in served files carry no scheme: the page references nothing off-host)
 * @example html`<p class="total">${n} hits</p>`
 */
import { h } from 'preact';
import htm from 'htm';

/** `html\`<tag …>…</tag>\`` → preact virtual DOM nodes. */
export const html = htm.bind(h);
