/**
 * The facet panel beside the hits: the facet field's values on the current query (its `terms`
 * buckets, exact counts in Folio), each a toggle that narrows the hits to it (a `post_filter`, so
 * the counts keep showing every value), and the values not listed (`sum_other_doc_count`).
 */
import { html } from '../html.js';

const NUMBER = new Intl.NumberFormat('en');

/**
 * @param {object} props
 * @param {string} props.field the facet field
 * @param {{ buckets: { key: string | number, key_as_string?: string, doc_count: number }[], sum_other_doc_count: number } | undefined} props.terms the response's facet aggregation
 * @param {import('../search-request.js').FacetFilter[]} props.filters the active filters
 * @param {(value: string | number) => void} props.onToggle adds or removes the filter on `field` = value
 */
export function Facets({ field, terms, filters, onToggle }) {
  if (terms === undefined) return null;
  const active = new Set(filters.filter((f) => f.field === field).map((f) => f.value));
  const max = Math.max(1, ...terms.buckets.map((b) => b.doc_count));
  return html` <figure class="facets" data-testid="facets" data-field=${field}>
    <figcaption>${field} <span class="muted">counts on the query</span></figcaption>
    <ul>
      ${terms.buckets.map(
        (b) =>
          html` <li>
            <button
              type="button"
              class=${active.has(b.key) ? 'facet on' : 'facet'}
              aria-pressed=${active.has(b.key) ? 'true' : 'false'}
              data-testid="facet"
              data-key=${String(b.key)}
              data-count=${String(b.doc_count)}
              onClick=${() => onToggle(b.key)}
            >
              <span class="key">${b.key_as_string ?? String(b.key)}</span>
              <span class="count">${NUMBER.format(b.doc_count)}</span>
              <span class="bar" style=${`width: ${(100 * b.doc_count) / max}%`}></span>
            </button>
          </li>`,
      )}
    </ul>
    ${terms.sum_other_doc_count > 0 && html`<p class="muted" data-testid="facet-other">${NUMBER.format(terms.sum_other_doc_count)} more in other values</p>`}
  </figure>`;
}

/**
 * The active facet filters as chips; a click removes one.
 * @param {object} props
 * @param {import('../search-request.js').FacetFilter[]} props.filters
 * @param {(filter: import('../search-request.js').FacetFilter) => void} props.onRemove
 */
export function FilterChips({ filters, onRemove }) {
  return filters.map(
    (f) =>
      html` <button
        type="button"
        class="chip"
        data-testid="filter-chip"
        data-field=${f.field}
        data-value=${String(f.value)}
        title="remove this filter"
        onClick=${() => onRemove(f)}
      >
        ${f.field}: ${String(f.value)} ×
      </button>`,
  );
}
