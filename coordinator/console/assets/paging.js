/**
 * Page arithmetic of the console: pages are 1-based, `from = (page - 1) × size` as in every
 * `from`/`size` walk of Elasticsearch (and the README's tour). Folio's deep pages cost about
 * what page 1 costs, so the last page is offered whenever the total is exact.
 */

/**
 * The `from` of 1-based `page` at `size` hits per page.
 * @param {number} page
 * @param {number} size
 * @returns {number}
 */
export function fromOf(page, size) {
  return (page - 1) * size;
}

/**
 * The number of pages of `total` hits at `size` per page (at least 1, so an empty result has a
 * page 1), or null when the total is only a lower bound (`relation: "gte"`): the last page is
 * then unknown.
 * @param {{ value: number, relation: 'eq' | 'gte' }} total `hits.total` of a search response
 * @param {number} size
 * @returns {number | null}
 */
export function pageCount(total, size) {
  if (total.relation !== 'eq') return null;
  return Math.max(1, Math.ceil(total.value / size));
}

/**
 * A page number typed by the user, made valid: an integer ≥ 1 and ≤ `pages` when known;
 * null when `input` is not a number.
 * @param {string} input
 * @param {number | null} pages
 * @returns {number | null}
 */
export function parsePage(input, pages) {
  const n = Math.trunc(Number(String(input).replaceAll(',', '').trim()));
  if (!Number.isFinite(n) || String(input).trim() === '') return null;
  return Math.min(Math.max(1, n), pages ?? Number.MAX_SAFE_INTEGER);
}
