/**
 * The search body's `collapse` (ES `CollapseBuilder.fromXContent`) with its `inner_hits`
 * (`InnerHitBuilder.fromXContent`): the field, the inner hit definitions expanded for each group,
 * and `max_concurrent_group_searches`.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/collapse-search-results.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/collapse/CollapseBuilder.java
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/index/query/InnerHitBuilder.java
 */
import { illegalArgument, parsingException } from '../../protocol/errors.ts';
import { parseFieldAndFormats, parseStoredFields, type StoredFields } from './field-and-format.ts';
import type { FieldAndFormat } from '../../protocol/search.ts';
import { type HighlightSpec } from '../../protocol/highlight.ts';
import { parseHighlight } from './highlight-parse.ts';
import { didYouMean, isObject, tokenName, xContentBoolean, xContentError, xContentInt } from './params.ts';
import type { SourceFilter } from '../../protocol/search.ts';
import type { SortField } from '../../protocol/sort.ts';
import { parseSortBody } from './sort-parse.ts';
import { parseSourceFilter } from './source-filter-parse.ts';

/** One `inner_hits` definition: a search of each group's documents. */
export interface InnerHitsSpec {
  name: string;
  /** Default 0. */
  from: number;
  /** Default 3 (ES `InnerHitBuilder.DEFAULT_SIZE`). */
  size: number;
  /** Null: `_score` descending. */
  sort: SortField[] | null;
  source: SourceFilter | null;
  version: boolean;
  seqNoPrimaryTerm: boolean;
  explain: boolean;
  trackScores: boolean;
  fields: FieldAndFormat[] | null;
  docvalueFields: FieldAndFormat[] | null;
  storedFields: StoredFields | null;
  highlight: HighlightSpec | null;
  /** A second-level collapse of the inner hits (its field only). */
  collapse: CollapseSpec | null;
}

/** A parsed `collapse`. */
export interface CollapseSpec {
  field: string;
  innerHits: InnerHitsSpec[];
  /** How many group searches run at once (absent: Folio's default, docs/collapse.md). */
  maxConcurrentGroupSearches: number | null;
}

const COLLAPSE_KEYS = ['field', 'inner_hits', 'max_concurrent_group_searches'];
const INNER_HITS_KEYS = [
  'name',
  'ignore_unmapped',
  'from',
  'size',
  'explain',
  'version',
  'seq_no_primary_term',
  'track_scores',
  'stored_fields',
  'docvalue_fields',
  'fields',
  'script_fields',
  'sort',
  '_source',
  'highlight',
  'collapse',
];

/** ES's `ObjectParser` wrapping of a setter's refusal: `[parser] failed to parse field [k]`. */
function fieldFailure(parser: string, k: string, reason: string) {
  return xContentError(`[${parser}] failed to parse field [${k}]`, { type: 'illegal_argument_exception', reason });
}

function stringValue(parser: string, k: string, v: unknown): string {
  if (typeof v !== 'string') throw xContentError(`[${parser}] ${k} doesn't support values of type: ${tokenName(v)}`);
  return v;
}

/**
 * `InnerHitBuilder.fromXContent`: keys in body order.
 * @throws EsError 400 `x_content_parse_exception` `[1:1] [inner_hits] unknown field [x]`, as the
 *   sort, `_source`, `fields` and `highlight` parsers for their values.
 */
export function parseInnerHits(v: unknown): Omit<InnerHitsSpec, 'name'> & { name: string | null } {
  if (!isObject(v)) throw parsingException('Invalid token in inner_hits array');
  const spec: Omit<InnerHitsSpec, 'name'> & { name: string | null } = {
    name: null,
    from: 0,
    size: 3,
    sort: null,
    source: null,
    version: false,
    seqNoPrimaryTerm: false,
    explain: false,
    trackScores: false,
    fields: null,
    docvalueFields: null,
    storedFields: null,
    highlight: null,
    collapse: null,
  };
  for (const [k, x] of Object.entries(v)) {
    switch (k) {
      case 'name':
        spec.name = stringValue('inner_hits', k, x);
        break;
      case 'ignore_unmapped':
        xContentBoolean(x);
        break;
      case 'from':
        spec.from = xContentInt(x);
        break;
      case 'size':
        spec.size = xContentInt(x);
        break;
      case 'explain':
        spec.explain = xContentBoolean(x);
        break;
      case 'version':
        spec.version = xContentBoolean(x);
        break;
      case 'seq_no_primary_term':
        spec.seqNoPrimaryTerm = xContentBoolean(x);
        break;
      case 'track_scores':
        spec.trackScores = xContentBoolean(x);
        break;
      case 'stored_fields':
        spec.storedFields = parseStoredFields(x);
        break;
      case 'docvalue_fields':
        if (!Array.isArray(x)) throw xContentError(`[inner_hits] docvalue_fields doesn't support values of type: ${tokenName(x)}`);
        spec.docvalueFields = parseFieldAndFormats(x);
        break;
      case 'fields':
        if (!Array.isArray(x)) throw xContentError(`[inner_hits] fields doesn't support values of type: ${tokenName(x)}`);
        spec.fields = parseFieldAndFormats(x);
        break;
      case 'script_fields':
        if (isObject(x) && Object.keys(x).length > 0)
          throw illegalArgument('[script_fields] are not supported by Folio: it has no scripting (docs/compatibility.md)');
        break;
      case 'sort':
        spec.sort = parseSortBody(x);
        break;
      case '_source':
        spec.source = parseSourceFilter(x);
        break;
      case 'highlight':
        spec.highlight = parseHighlight(x);
        break;
      case 'collapse':
        spec.collapse = parseCollapse(x);
        break;
      default:
        throw xContentError(`[inner_hits] unknown field [${k}]${didYouMean(k, INNER_HITS_KEYS)}`);
    }
  }
  return spec;
}

/**
 * `CollapseBuilder.fromXContent`: keys in body order; `inner_hits` is one definition or an array.
 * @throws EsError 400 `x_content_parse_exception` `[1:1] [collapse] unknown field [x]`; `[collapse]
 *   failed to parse field [k]` caused by ES's setter texts (`field name is null or empty`,
 *   `maxConcurrentGroupRequests\` must be positive`, `inner_hits must have a [name]; …`);
 *   `parsing_exception` `Invalid token in inner_hits array`.
 */
export function parseCollapse(v: unknown): CollapseSpec {
  if (!isObject(v)) throw xContentError(`[collapse] doesn't support values of type: ${tokenName(v)}`);
  let field: string | null = null;
  let innerHits: InnerHitsSpec[] = [];
  let max: number | null = null;
  const named = (list: ReturnType<typeof parseInnerHits>[]): InnerHitsSpec[] => {
    const out: InnerHitsSpec[] = [];
    for (const h of list) {
      if (h.name === null) throw fieldFailure('collapse', 'inner_hits', 'inner_hits must have a [name]; set the [name] field in the inner_hits definition');
      out.push({ ...h, name: h.name });
    }
    return out;
  };
  for (const [k, x] of Object.entries(v)) {
    if (k === 'field') {
      const f = stringValue('collapse', k, x);
      if (f === '') throw fieldFailure('collapse', k, 'field name is null or empty');
      field = f;
    } else if (k === 'max_concurrent_group_searches') {
      const n = xContentInt(x);
      if (n < 1) throw fieldFailure('collapse', k, 'maxConcurrentGroupRequests` must be positive');
      max = n;
    } else if (k === 'inner_hits') {
      if (Array.isArray(x)) innerHits = named(x.map(parseInnerHits));
      else if (isObject(x)) innerHits = named([parseInnerHits(x)]);
      else throw xContentError(`[collapse] inner_hits doesn't support values of type: ${tokenName(x)}`);
    } else throw xContentError(`[collapse] unknown field [${k}]${didYouMean(k, COLLAPSE_KEYS)}`);
  }
  if (field === null) throw illegalArgument('no collapse field specified');
  return { field, innerHits, maxConcurrentGroupSearches: max };
}
