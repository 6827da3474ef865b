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
import { Results } from './components/results.js';
import { SearchControls } from './components/search-controls.js';
import { html } from './html.js';
import { buildSearchRequest } from './search-request.js';
import { DEFAULT_FORM, hashOf, readHashState } from './url-state.js';

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

/**
 * The search state of the page: the latest search's status, error and answer. `search(next)` calls
 * `onStart(next)`, aborts the search in flight and shows `next`'s answer unless a newer search
 * started meanwhile; `fail(err)` shows an error; `started` counts the searches started.
 * @param {(next: import('./search-request.js').SearchForm) => void} onStart
 */
function useLatestSearch(onStart) {
  const [status, setStatus] = useState(/** @type {'idle' | 'loading' | 'ok' | 'error'} */ ('idle'));
  const [error, setError] = useState(/** @type {string | null} */ (null));
  const [shown, setShown] = useState(/** @type {Shown | null} */ (null));
  const latest = useRef(/** @type {AbortController | null} */ (null));
  /** Counts the searches started, so an index switch does not override a newer search. */
  const started = useRef(0);

  /** Runs `next` and shows its answer unless a newer search started meanwhile. */
  async function search(/** @type {import('./search-request.js').SearchForm} */ next) {
    onStart(next);
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

  /** Shows `err` as the page's error. */
  function fail(/** @type {unknown} */ err) {
    setError(messageOf(err));
    setStatus('error');
  }

  return { status, error, shown, started, search, fail };
}

/** The whole console. */
export function App() {
  const [indices, setIndices] = useState(/** @type {{ index: string, docs: number }[]} */ ([]));
  const [fields, setFields] = useState(/** @type {{ sortable: string[], collapsible: string[] }} */ ({ sortable: [], collapsible: [] }));
  const [form, setForm] = useState(() => ({ ...DEFAULT_FORM, ...readHashState(location.hash) }));
  const [draft, setDraft] = useState(form.query);
  const { status, error, shown, started, search, fail } = useLatestSearch((next) => {
    setForm(next);
    history.replaceState(null, '', hashOf(next));
  });

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
      await search({
        ...wanted,
        sortField: keepSort ? wanted.sortField : '',
        collapse: keepCollapse ? wanted.collapse : '',
        facet: keepFacet ? wanted.facet : '',
        filters,
      });
    } catch (err) {
      fail(err);
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
      .catch(fail);
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

  return html` <header class="top">
      <h1>Folio <span>search console</span></h1>
      <${SearchControls}
        indices=${indices}
        fields=${fields.sortable}
        collapsible=${fields.collapsible}
        form=${form}
        draft=${draft}
        onDraft=${setDraft}
        onSubmit=${() => change({})}
        onChange=${change}
      />
    </header>
    ${error !== null && html`<div class="error" role="alert" data-testid="error">${error}</div>`}
    <${Results}
      status=${status}
      shown=${shown}
      onPage=${(/** @type {number} */ page) => shown && search({ ...shown.form, page })}
      onToggleFilter=${toggleFilter}
    />`;
}
