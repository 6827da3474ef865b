/**
 * The console's form in the URL fragment
 * (`/_console#index=cities&sort=population:desc&collapse=country&facet=country&filter=["country","FR"]&size=20&page=3`),
 * so a reload keeps the search and a link shows the same page, as Kibana's Discover keeps its
 * state in the URL. Only the fragment is used: it never reaches the server.
 */

/** The form's defaults: relevance order, no collapse, 20 hits per page, page 1. */
export const DEFAULT_FORM = Object.freeze({
  index: '',
  query: '',
  sortField: '',
  order: 'desc',
  collapse: '',
  facet: '',
  filters: /** @type {import('./search-request.js').FacetFilter[]} */ ([]),
  size: 20,
  page: 1,
});

/** Page sizes the size control offers. */
export const PAGE_SIZES = [10, 20, 50, 100];

/**
 * The form fields a fragment names, validated; missing or invalid ones are left out.
 * @param {string} hash `location.hash`, with or without `#`
 * @returns {Partial<import('./search-request.js').SearchForm>}
 */
export function readHashState(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  /** @type {Partial<import('./search-request.js').SearchForm>} */
  const out = {};
  const index = p.get('index');
  if (index) out.index = index;
  const q = p.get('q');
  if (q !== null) out.query = q;
  const sort = p.get('sort');
  if (sort) {
    const m = /^(.+):(asc|desc)$/.exec(sort);
    out.sortField = m ? m[1] : sort;
    if (m) out.order = /** @type {'asc' | 'desc'} */ (m[2]);
  }
  const collapse = p.get('collapse');
  if (collapse) out.collapse = collapse;
  const facet = p.get('facet');
  if (facet) out.facet = facet;
  const filters = p
    .getAll('filter')
    .map(filterOf)
    .filter((f) => f !== null);
  if (filters.length > 0) out.filters = filters;
  const size = Number(p.get('size'));
  if (PAGE_SIZES.includes(size)) out.size = size;
  const page = Number(p.get('page'));
  if (Number.isInteger(page) && page >= 1) out.page = page;
  return out;
}

/**
 * The fragment of `form` (defaults left out).
 * @param {import('./search-request.js').SearchForm} form
 * @returns {string} `#index=…&…`
 */
export function hashOf(form) {
  const p = new URLSearchParams();
  p.set('index', form.index);
  if (form.query !== '') p.set('q', form.query);
  if (form.sortField !== '') p.set('sort', `${form.sortField}:${form.order}`);
  if (form.collapse !== '') p.set('collapse', form.collapse);
  if (form.facet !== '') p.set('facet', form.facet);
  for (const f of form.filters) p.append('filter', JSON.stringify([f.field, f.value]));
  if (form.size !== DEFAULT_FORM.size) p.set('size', String(form.size));
  if (form.page !== 1) p.set('page', String(form.page));
  return `#${p.toString()}`;
}

/**
 * A `filter` fragment value: the JSON pair `["field", value]` (a string, or a number for a numeric facet).
 * @param {string} text
 * @returns {import('./search-request.js').FacetFilter | null}
 */
function filterOf(text) {
  try {
    const pair = JSON.parse(text);
    if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && (typeof pair[1] === 'string' || typeof pair[1] === 'number'))
      return { field: pair[0], value: pair[1] };
  } catch {
    // not a filter: left out like any invalid fragment value
  }
  return null;
}
