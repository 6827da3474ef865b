/**
 * The console's root component: loads the index list, then the chosen index's sortable fields,
 * and runs searches. Each search is one `_search` request built from the form
 * (search-request.js); a newer search aborts the one in flight, and only the latest answer is
 * shown. The form lives in the URL fragment (url-state.js). Errors of the API appear in the page
 * with ES's `error.reason`.
 *
 * The results section states what it shows for scripts and tests: `data-status`
 * (`idle`, `loading`, `ok`, `error`) and the shown page's `data-index`, `data-from`, `data-size`,
 * `data-sort` (`field:order`, '' for relevance), `data-collapse` (the field, '' for none) and
 * `data-query` (the query box's text), `data-facet` (the facet field, '' for none) and
 * `data-filters` (the facet filters, `field:value` joined by `,`). A collapsed page counts and
 * pages groups (`hits.total_groups`, Folio's exact group count). A facet field shows its values'
 * counts on the query beside the hits; a click on one filters the hits by it (components/facets.js).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, indexFields, listIndices, runSearch } from './api.js';
import { Facets, FilterChips } from './components/facets.js';
import { HitsTable } from './components/hits-table.js';
import { Pager } from './components/pager.js';
import { ProfileChart } from './components/profile-chart.js';
import { SearchControls } from './components/search-controls.js';
import { html } from './html.js';
import { pageCount } from './paging.js';
import { buildSearchRequest, FACET_AGG, GROUP_INNER_HITS } from './search-request.js';
import { DEFAULT_FORM, hashOf, readHashState } from './url-state.js';

const NUMBER = new Intl.NumberFormat('en');

/**
 * A search that answered: its form, the request sent, the response, and the round trip in ms.
 * @typedef {{ form: import('./search-request.js').SearchForm, request: import('./search-request.js').SearchRequest, response: any, roundTripMs: number }} Shown
 */

/**
 * @param {unknown} err
 * @returns {string} what the page shows for a failure
 */
function messageOf(err) {
  if (err instanceof ApiError) return err.type ? `${err.type}: ${err.message}` : err.message;
  return err instanceof Error ? err.message : String(err);
}

/** The whole console. */
export function App() {
  const [indices, setIndices] = useState(/** @type {{ index: string, docs: number }[]} */ ([]));
  const [fields, setFields] = useState(/** @type {{ sortable: string[], collapsible: string[] }} */ ({ sortable: [], collapsible: [] }));
  const [form, setForm] = useState(() => ({ ...DEFAULT_FORM, ...readHashState(location.hash) }));
  const [draft, setDraft] = useState(form.query);
  const [status, setStatus] = useState(/** @type {'idle' | 'loading' | 'ok' | 'error'} */ ('idle'));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [shown, setShown] = useState(/** @type {Shown | null} */ (null));
  const latest = useRef(/** @type {AbortController | null} */ (null));
  /** Counts the searches started, so an index switch does not override a newer search. */
  const started = useRef(0);

  /** Runs `next` and shows its answer unless a newer search started meanwhile. */
  async function search(/** @type {import('./search-request.js').SearchForm} */ next) {
    setForm(next);
    history.replaceState(null, '', hashOf(next));
    started.current += 1;
    latest.current?.abort();
    const controller = new AbortController();
    latest.current = controller;
    setStatus('loading');
    setError(null);
    const sentAt = performance.now();
    try {
      const request = buildSearchRequest(next);
      const response = await runSearch(request, controller.signal);
      if (latest.current !== controller) return;
      setShown({ form: next, request, response, roundTripMs: performance.now() - sentAt });
      setStatus('ok');
    } catch (err) {
      if (latest.current !== controller) return;
      setError(messageOf(err));
      setStatus('error');
    }
  }

  /** Loads `index`'s fields, then searches it (keeping `wanted`'s sort and collapse when they exist there). */
  async function openIndex(/** @type {import('./search-request.js').SearchForm} */ wanted) {
    setForm(wanted);
    const before = started.current;
    try {
      const found = await indexFields(wanted.index);
      setFields(found);
      if (started.current !== before) return; // the user searched meanwhile
      const keepSort = wanted.sortField === '' || wanted.sortField === '_id' || found.sortable.includes(wanted.sortField);
      const keepCollapse = found.collapsible.includes(wanted.collapse);
      const keepFacet = found.collapsible.includes(wanted.facet);
      const filters = wanted.filters.filter((f) => found.collapsible.includes(f.field));
      await search({ ...wanted, sortField: keepSort ? wanted.sortField : '', collapse: keepCollapse ? wanted.collapse : '', facet: keepFacet ? wanted.facet : '', filters });
    } catch (err) {
      setError(messageOf(err));
      setStatus('error');
    }
  }

  useEffect(() => {
    listIndices()
      .then((list) => {
        setIndices(list);
        const index = list.some((i) => i.index === form.index) ? form.index : list[0]?.index;
        if (index === undefined) throw new Error('no indices yet: create one with PUT /{index} or load data with `npx folio load`');
        return openIndex({ ...form, index });
      })
      .catch((err) => {
        setError(messageOf(err));
        setStatus('error');
      });
  }, []);

  /** A control changed: search again from page 1 (a new index first loads its fields). */
  function change(/** @type {Partial<import('./search-request.js').SearchForm>} */ delta) {
    const next = { ...form, query: draft, ...delta, page: 1 };
    if (delta.index !== undefined && delta.index !== form.index) void openIndex(next);
    else void search(next);
  }

  /** Adds the filter `field` = `value`, or removes it when it is there; searches from page 1. */
  function toggleFilter(/** @type {string} */ field, /** @type {string | number} */ value) {
    if (!shown) return;
    const on = shown.form.filters.some((f) => f.field === field && f.value === value);
    const filters = on ? shown.form.filters.filter((f) => !(f.field === field && f.value === value)) : [...shown.form.filters, { field, value }];
    void search({ ...shown.form, filters, page: 1 });
  }

  const response = shown?.response;
  const total = response?.hits?.total;
  const groups = response?.hits?.total_groups;
  const pages = shown && total ? pageCount(groups ?? total, shown.form.size) : null;
  return html`
    <header class="top">
      <h1>Folio <span>search console</span></h1>
      <${SearchControls} indices=${indices} fields=${fields.sortable} collapsible=${fields.collapsible} form=${form} draft=${draft} onDraft=${setDraft}
        onSubmit=${() => change({})} onChange=${change} />
    </header>
    ${error !== null && html`<div class="error" role="alert" data-testid="error">${error}</div>`}
    <section class="results" data-testid="results" data-status=${status}
      data-index=${shown?.form.index ?? ''} data-from=${shown ? String(shown.request.body.from) : ''}
      data-size=${shown ? String(shown.form.size) : ''} data-sort=${shown?.form.sortField ? `${shown.form.sortField}:${shown.form.order}` : ''}
      data-collapse=${shown?.form.collapse ?? ''} data-query=${shown?.form.query ?? ''}
      data-facet=${shown?.form.facet ?? ''} data-filters=${shown ? shown.form.filters.map((f) => `${f.field}:${f.value}`).join(',') : ''}>
      ${shown !== null && html`
        <div class="summary">
          <span class="total" data-testid="total" data-value=${String(total.value)} data-relation=${total.relation}>
            ${total.relation === 'gte' ? '≥ ' : ''}${NUMBER.format(total.value)} hits
          </span>
          <span class="badge" title="hits.total.relation">relation: ${total.relation}</span>
          ${groups && html`<span class="total groups" data-testid="groups" data-value=${String(groups.value)} data-relation=${groups.relation}>
            in ${groups.relation === 'gte' ? '≥ ' : ''}${NUMBER.format(groups.value)} groups by ${shown.form.collapse}</span>`}
          <${FilterChips} filters=${shown.form.filters} onRemove=${(/** @type {import('./search-request.js').FacetFilter} */ f) => toggleFilter(f.field, f.value)} />
          <span class="muted">took ${response.took} ms · round trip ${Math.round(shown.roundTripMs)} ms</span>
          ${status === 'loading' && html`<span class="muted loading">searching…</span>`}
        </div>
        <details class="request"><summary>request</summary>
          <code>${shown.request.method} ${shown.request.path}\n${JSON.stringify(shown.request.body)}</code>
        </details>
        <${Pager} page=${shown.form.page} pages=${pages} hasMore=${response.hits.hits.length === shown.form.size}
          onPage=${(/** @type {number} */ page) => search({ ...shown.form, page })} />
        <div class="panes">
          <${HitsTable} hits=${response.hits.hits} collapse=${shown.form.collapse} groupInnerHits=${GROUP_INNER_HITS} />
          <div class="side">
            ${shown.form.facet && html`<${Facets} field=${shown.form.facet} terms=${response.aggregations?.[FACET_AGG]} filters=${shown.form.filters}
              onToggle=${(/** @type {string | number} */ value) => toggleFilter(shown.form.facet, value)} />`}
            <${ProfileChart} profile=${response.profile} took=${response.took} />
          </div>
        </div>`}
    </section>`;
}
