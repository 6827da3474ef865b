/**
 * The hits of one page as a table: `_id`, `_score`, then one column per top-level `_source`
 * field (in order of first appearance on the page), like Kibana Discover's document table.
 * Objects and arrays are shown as compact JSON. A collapsed page starts each row with its group
 * (the key and how many documents it holds); a highlighted page ends each row with its snippet,
 * the matches marked.
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

const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#x27;': "'", '&#x2F;': '/' };

/**
 * A fragment highlighted with `encoder: html` as pieces of text and marked matches: the tags are
 * the only markup (the text's own `<`, `&`… come escaped), so no HTML is ever injected.
 * @param {string} fragment e.g. `Fish &amp; <em>chips</em>`
 * @returns {{ text: string, match: boolean }[]}
 */
export function fragmentPieces(fragment) {
  const decode = (/** @type {string} */ s) => s.replace(/&(amp|lt|gt|quot|#x27|#x2F);/g, (e) => ENTITIES[/** @type {keyof typeof ENTITIES} */ (e)]);
  /** @type {{ text: string, match: boolean }[]} */
  const out = [];
  for (const [i, part] of fragment.split(/<\/?em>/).entries()) if (part !== '') out.push({ text: decode(part), match: i % 2 === 1 });
  return out;
}

/**
 * The snippet of a hit: the first fragment of its first highlighted field, with the field's name.
 * @param {{ highlight?: Record<string, string[]> }} hit
 * @returns {{ field: string, fragment: string } | null}
 */
export function snippetOf(hit) {
  for (const [field, fragments] of Object.entries(hit.highlight ?? {})) if (fragments.length > 0) return { field, fragment: fragments[0] };
  return null;
}

/**
 * The table of one page of hits, in the response's order.
 * @param {object} props
 * @param {{ _index: string, _id: string, _score: number | null, _source?: Record<string, unknown>, fields?: Record<string, unknown[]>, highlight?: Record<string, string[]>, inner_hits?: Record<string, any> }[]} props.hits
 * @param {string} [props.collapse] the field the page is collapsed by ('' or absent: not collapsed)
 * @param {string} [props.groupInnerHits] the inner hits that count each group
 */
export function HitsTable({ hits, collapse = '', groupInnerHits = 'group' }) {
  const columns = sourceColumns(hits);
  const snippets = hits.some((h) => snippetOf(h) !== null);
  const span = columns.length + 2 + (collapse ? 2 : 0) + (snippets ? 1 : 0);
  return html` <div class="table-wrap">
    <table class="hits" data-testid="hits-table" data-collapse=${collapse}>
      <thead>
        <tr>
          ${
            collapse &&
            html`<th>${collapse}</th>
              <th class="num">in group</th>`
          }
          <th>_id</th>
          <th class="num">_score</th>
          ${columns.map((c) => html`<th>${c}</th>`)}${snippets && html`<th>highlight</th>`}
        </tr>
      </thead>
      <tbody>
        ${
          hits.length === 0 &&
          html`<tr>
            <td class="empty" colspan=${span}>No hits on this page.</td>
          </tr>`
        }
        ${hits.map(
          (hit) =>
            html` <tr key=${`${hit._index}/${hit._id}`} title=${JSON.stringify(hit._source ?? {})}>
              ${
                collapse &&
                html` <td class="group">${cellText(hit.fields?.[collapse]?.[0])}</td>
                  <td class="num group-size">${cellText(hit.inner_hits?.[groupInnerHits]?.hits?.total?.value)}</td>`
              }
              <td class="id">${hit._id}</td>
              <td class="num">${hit._score === null || hit._score === undefined ? '—' : hit._score.toFixed(3)}</td>
              ${columns.map((c) => {
                const text = cellText(hit._source?.[c]);
                return html`<td class=${typeof hit._source?.[c] === 'number' ? 'num' : ''} title=${text}>${text}</td>`;
              })}
              ${snippets && html`<td class="snippet">${snippetCell(snippetOf(hit))}</td>`}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * A snippet as text with `<mark>` around each match, and its field in the tooltip.
 * @param {{ field: string, fragment: string } | null} snippet
 */
function snippetCell(snippet) {
  if (snippet === null) return '';
  return html`<span title=${snippet.field}>${fragmentPieces(snippet.fragment).map((p) => (p.match ? html`<mark>${p.text}</mark>` : p.text))}</span>`;
}
