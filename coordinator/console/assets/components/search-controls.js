/**
 * The console's controls: index picker, query box, sort field and order, collapse field, facet field, page size, Search.
 * The query box runs on Search, on Enter (unless it holds JSON, where Enter is a newline) and on
 * Ctrl/⌘+Enter; every other control runs the search at once, from page 1.
 */
import { html } from '../html.js';
import { PAGE_SIZES } from '../url-state.js';

const NUMBER = new Intl.NumberFormat('en');

/**
 * The control bar (a form; submitting it runs the query box).
 * @param {object} props
 * @param {{ index: string, docs: number }[]} props.indices the picker's options
 * @param {string[]} props.fields sortable fields of the selected index (`_id` is always offered: Folio sorts on it)
 * @param {string[]} props.collapsible keyword and numeric fields of the selected index (hits can be grouped and counted by them)
 * @param {import('../search-request.js').SearchForm} props.form the last searched form
 * @param {string} props.draft the query box's text (searched on submit)
 * @param {(text: string) => void} props.onDraft
 * @param {() => void} props.onSubmit runs the draft from page 1
 * @param {(change: Partial<import('../search-request.js').SearchForm>) => void} props.onChange
 */
export function SearchControls({ indices, fields, collapsible, form, draft, onDraft, onSubmit, onChange }) {
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    onSubmit();
  };
  const onKeyDown = (/** @type {KeyboardEvent} */ e) => {
    if (e.key !== 'Enter' || e.shiftKey) return;
    if (e.ctrlKey || e.metaKey || !draft.trim().startsWith('{')) submit(e);
  };
  const value = (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.currentTarget).value;
  return html` <form class="controls" onSubmit=${submit}>
    <label class="index"
      >index
      <select name="index" value=${form.index} onChange=${(/** @type {Event} */ e) => onChange({ index: value(e) })}>
        ${indices.map((i) => html`<option value=${i.index}>${i.index} (${NUMBER.format(i.docs)})</option>`)}
      </select>
    </label>
    <label class="query"
      >query
      <textarea
        name="query"
        rows=${draft.includes('\n') ? 4 : 1}
        spellcheck="false"
        value=${draft}
        placeholder='q syntax (name:wien AND country:AT) or JSON DSL ({"match": {"name": "wien"}}); empty: all'
        onInput=${(/** @type {Event} */ e) => onDraft(value(e))}
        onKeyDown=${onKeyDown}
      ></textarea>
    </label>
    <label
      >sort
      <select name="sort" value=${form.sortField} onChange=${(/** @type {Event} */ e) => onChange({ sortField: value(e) })}>
        <option value="">_score (relevance)</option>
        <option value="_id">_id</option>
        ${fields.map((f) => html`<option value=${f}>${f}</option>`)}
      </select>
    </label>
    <label
      >order
      <select
        name="order"
        value=${form.order}
        disabled=${form.sortField === ''}
        onChange=${(/** @type {Event} */ e) => onChange({ order: /** @type {'asc' | 'desc'} */ (value(e)) })}
      >
        <option value="desc">desc</option>
        <option value="asc">asc</option>
      </select>
    </label>
    <label
      >collapse
      <select name="collapse" value=${form.collapse} onChange=${(/** @type {Event} */ e) => onChange({ collapse: value(e) })}>
        <option value="">none</option>
        ${collapsible.map((f) => html`<option value=${f}>${f}</option>`)}
      </select>
    </label>
    <label
      >facets
      <select name="facet" value=${form.facet} onChange=${(/** @type {Event} */ e) => onChange({ facet: value(e) })}>
        <option value="">none</option>
        ${collapsible.map((f) => html`<option value=${f}>${f}</option>`)}
      </select>
    </label>
    <label
      >per page
      <select name="size" value=${String(form.size)} onChange=${(/** @type {Event} */ e) => onChange({ size: Number(value(e)) })}>
        ${PAGE_SIZES.map((s) => html`<option value=${String(s)}>${s}</option>`)}
      </select>
    </label>
    <button type="submit" class="primary">Search</button>
  </form>`;
}
