/**
 * Pagination: first, previous, "page [n] of N" with Go (jump to any page), next, last. The last
 * page is known only when the total is exact (`relation: "eq"`; the console always sends
 * `track_total_hits: true`). Deep pages are cheap in Folio, so every page is one click away.
 */
import { useEffect, useState } from 'preact/hooks';
import { html } from '../html.js';
import { parsePage } from '../paging.js';

const NUMBER = new Intl.NumberFormat('en');

/**
 * The pager of the shown search; `onPage` runs the same search at another page.
 * @param {object} props
 * @param {number} props.page the shown page (1-based)
 * @param {number | null} props.pages page count, null when the total is a lower bound
 * @param {boolean} props.hasMore whether the shown page was full (decides Next when `pages` is null)
 * @param {(page: number) => void} props.onPage
 */
export function Pager({ page, pages, hasMore, onPage }) {
  const [typed, setTyped] = useState(String(page));
  useEffect(() => setTyped(String(page)), [page]);
  const atEnd = pages === null ? !hasMore : page >= pages;
  const jump = (/** @type {Event} */ e) => {
    e.preventDefault();
    const target = parsePage(typed, pages);
    if (target === null) setTyped(String(page));
    else onPage(target);
  };
  return html` <form class="pager" onSubmit=${jump} aria-label="pages">
    <button type="button" data-testid="first" disabled=${page <= 1} onClick=${() => onPage(1)}>« first</button>
    <button type="button" data-testid="prev" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>‹ prev</button>
    <label
      >page
      <input
        name="page"
        data-testid="page-input"
        inputmode="numeric"
        size="7"
        value=${typed}
        onInput=${(/** @type {Event} */ e) => setTyped(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
    /></label>
    <span class="of">of ${pages === null ? '?' : NUMBER.format(pages)}</span>
    <button type="submit" data-testid="go">Go</button>
    <button type="button" data-testid="next" disabled=${atEnd} onClick=${() => onPage(page + 1)}>next ›</button>
    <button type="button" data-testid="last" disabled=${pages === null || page >= pages} onClick=${() => pages !== null && onPage(pages)}>last »</button>
  </form>`;
}
