/**
 * The `_source` metadata field's mapping (ES `SourceFieldMapper`): `{"enabled": false}` (or
 * `mode: disabled`) keeps no source, `includes`/`excludes` keep part of it. Folio's shards keep
 * every document's whole source (their segments and recoveries are rebuilt from it), and show
 * only the part ES would have stored: GET, `_source`, hits, `top_hits`, the update's merge, the
 * `fields` option and highlighting read this view; `docvalue_fields` and `stored_fields` read the
 * whole source, as ES reads them from doc values and stored fields (docs/compatibility.md).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/mapping-source-field.html
 */
import type { Mapping } from '../protocol/mapping.ts';
import type { SourceFilter } from '../protocol/search.ts';
import { filterSourceText } from './raw-json.ts';
import { filterSource } from './source-filter.ts';

const cache = new WeakMap<Mapping, SourceFilter>();

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/**
 * The mapping's `_source` as a source filter: `true` (the whole source: no `_source` mapping, the
 * usual case), `false` (disabled) or `{includes, excludes}`. Cached per mapping object.
 */
export function storedSourceFilter(mapping: Mapping): SourceFilter {
  let f = cache.get(mapping);
  if (f !== undefined) return f;
  const m = mapping._source as Record<string, unknown> | undefined;
  if (!m) f = true;
  else if (m.enabled === false || m.enabled === 'false' || m.mode === 'disabled') f = false;
  else {
    const includes = strings(m.includes);
    const excludes = strings(m.excludes);
    f = includes.length + excludes.length === 0 ? true : { includes, excludes };
  }
  cache.set(mapping, f);
  return f;
}

/** True when the mapping keeps no `_source` (`enabled: false`). */
export function sourceDisabled(mapping: Mapping): boolean {
  return storedSourceFilter(mapping) === false;
}

/**
 * The part of a document's source text that ES would have stored: the text itself without a
 * `_source` mapping (no parse), undefined when the source is disabled, else the filtered text.
 */
export function visibleSourceText(text: string, mapping: Mapping): string | undefined {
  const f = storedSourceFilter(mapping);
  return f === true ? text : filterSourceText(text, f);
}

/** {@link visibleSourceText} of a parsed source (`{}` when the source is disabled). */
export function visibleSource(source: Record<string, unknown>, mapping: Mapping): Record<string, unknown> {
  const f = storedSourceFilter(mapping);
  return f === true ? source : (filterSource(source, f) ?? {});
}
