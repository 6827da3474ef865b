/**
 * The hits of one page as a table: `_id`, `_score`, then one column per top-level `_source`
 * field (in order of first appearance on the page), like Kibana Discover's document table.
 * Objects and arrays are shown as compact JSON.
 */
import { html } from '../html.js';

/** At most this many `_source` columns; the rest stay in the row's tooltip. */
const MAX_SOURCE_COLUMNS = 12;

/**
 * The `_source` columns of a page: every top-level key, in order of first appearance.
 * @param {{ _source?: Record<string, unknown> }[]} hits
 * @returns {string[]}
 */
export function sourceColumns(hits) {
  const seen = new Set();
  for (const hit of hits) for (const key of Object.keys(hit._source ?? {})) seen.add(key);
  return [...seen].slice(0, MAX_SOURCE_COLUMNS);
}

/**
 * A cell's text: strings as they are, numbers and booleans printed, null/absent empty, others JSON.
 * @param {unknown} value
 * @returns {string}
 */
export function cellText(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The table of one page of hits, in the response's order.
 * @param {object} props
 * @param {{ _index: string, _id: string, _score: number | null, _source?: Record<string, unknown> }[]} props.hits
 */
export function HitsTable({ hits }) {
  const columns = sourceColumns(hits);
  return html`
    <div class="table-wrap">
      <table class="hits" data-testid="hits-table">
        <thead><tr><th>_id</th><th class="num">_score</th>${columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
        <tbody>
          ${hits.length === 0 && html`<tr><td class="empty" colspan=${columns.length + 2}>No hits on this page.</td></tr>`}
          ${hits.map((hit) => html`
            <tr key=${`${hit._index}/${hit._id}`} title=${JSON.stringify(hit._source ?? {})}>
              <td class="id">${hit._id}</td>
              <td class="num">${hit._score === null || hit._score === undefined ? '—' : hit._score.toFixed(3)}</td>
              ${columns.map((c) => {
                const text = cellText(hit._source?.[c]);
                return html`<td class=${typeof hit._source?.[c] === 'number' ? 'num' : ''} title=${text}>${text}</td>`;
              })}
            </tr>`)}
        </tbody>
      </table>
    </div>`;
}
