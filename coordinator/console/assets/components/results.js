/**
 * The results section of the shown search: the summary (totals, groups, filter chips, timings),
 * the request sent, the pager, the hits and the side pane (facets, profile). It states what it
 * shows as `data-*` attributes for scripts and tests (see app.js).
 */
import { html } from '../html.js';
import { pageCount } from '../paging.js';
import { FACET_AGG, GROUP_INNER_HITS } from '../search-request.js';
import { Facets, FilterChips } from './facets.js';
import { HitsTable } from './hits-table.js';
import { Pager } from './pager.js';
import { ProfileChart } from './profile-chart.js';

const NUMBER = new Intl.NumberFormat('en');

/**
 * @param {object} props
 * @param {'idle' | 'loading' | 'ok' | 'error'} props.status
 * @param {import('../app.js').Shown | null} props.shown the search that answered last, null before the first
 * @param {(page: number) => void} props.onPage runs the shown search at another page
 * @param {(field: string, value: string | number) => void} props.onToggleFilter adds or removes a facet filter
 */
export function Results({ status, shown, onPage, onToggleFilter }) {
  const response = shown?.response;
  const total = response?.hits?.total;
  const groups = response?.hits?.total_groups;
  const pages = shown && total ? pageCount(groups ?? total, shown.form.size) : null;
  return html` <section
    class="results"
    data-testid="results"
    data-status=${status}
    data-index=${shown?.form.index ?? ''}
    data-from=${shown ? String(shown.request.body.from) : ''}
    data-size=${shown ? String(shown.form.size) : ''}
    data-sort=${shown?.form.sortField ? `${shown.form.sortField}:${shown.form.order}` : ''}
    data-collapse=${shown?.form.collapse ?? ''}
    data-query=${shown?.form.query ?? ''}
    data-facet=${shown?.form.facet ?? ''}
    data-filters=${shown ? shown.form.filters.map((f) => `${f.field}:${f.value}`).join(',') : ''}
  >
    ${
      shown !== null &&
      html` <div class="summary">
          <span class="total" data-testid="total" data-value=${String(total.value)} data-relation=${total.relation}>
            ${total.relation === 'gte' ? '≥ ' : ''}${NUMBER.format(total.value)} hits
          </span>
          <span class="badge" title="hits.total.relation">relation: ${total.relation}</span>
          ${
            groups &&
            html`<span class="total groups" data-testid="groups" data-value=${String(groups.value)} data-relation=${groups.relation}>
              in ${groups.relation === 'gte' ? '≥ ' : ''}${NUMBER.format(groups.value)} groups by ${shown.form.collapse}</span
            >`
          }
          <${FilterChips}
            filters=${shown.form.filters}
            onRemove=${(/** @type {import('../search-request.js').FacetFilter} */ f) => onToggleFilter(f.field, f.value)}
          />
          <span class="muted">took ${response.took} ms · round trip ${Math.round(shown.roundTripMs)} ms</span>
          ${status === 'loading' && html`<span class="muted loading">searching…</span>`}
        </div>
        <details class="request">
          <summary>request</summary>
          <code>${shown.request.method} ${shown.request.path} ${JSON.stringify(shown.request.body)}</code>
        </details>
        <${Pager} page=${shown.form.page} pages=${pages} hasMore=${response.hits.hits.length === shown.form.size} onPage=${onPage} />
        <div class="panes">
          <${HitsTable} hits=${response.hits.hits} collapse=${shown.form.collapse} groupInnerHits=${GROUP_INNER_HITS} />
          <div class="side">
            ${
              shown.form.facet &&
              html`<${Facets}
                field=${shown.form.facet}
                terms=${response.aggregations?.[FACET_AGG]}
                filters=${shown.form.filters}
                onToggle=${(/** @type {string | number} */ value) => onToggleFilter(shown.form.facet, value)}
              />`
            }
            <${ProfileChart} profile=${response.profile} took=${response.took} />
          </div>
        </div>`
    }
  </section>`;
}
