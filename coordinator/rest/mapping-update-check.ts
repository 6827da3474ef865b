/**
 * The checks of a mapping update against the current mapping (`PUT /{index}/_mapping`), as ES's
 * `Mapping.merge` makes them: no object/leaf or type changes, and the parameters that are not
 * updateable (ES `Parameter.updateable`) keep their values, `_source`'s included. Errors carry
 * ES's texts.
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/FieldMapper.java
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/ObjectMapper.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import { ownValue } from '../../shared/own-keys.ts';
import { javaString } from './mapping-parse.ts';

type Obj = Record<string, unknown>;

/** Parameters that a mapping update may change (ES `Parameter.updateable`); others must stay as they are. */
const UPDATEABLE = new Set([
  'type',
  'fields',
  'properties',
  'meta',
  'copy_to',
  'ignore_above',
  'ignore_malformed',
  'coerce',
  'fielddata',
  'search_analyzer',
  'search_quote_analyzer',
  'eager_global_ordinals',
  'dynamic',
  'boost',
  'norms',
  'time_series_dimension',
  'depth_limit',
  'split_queries_on_whitespace',
  'fielddata_frequency_filter',
  'include_in_parent',
  'include_in_root',
  'value',
]);

/** Defaults of non-updateable parameters, to compare a parameter a mapping update leaves out. */
function defaultOf(fm: FieldMapping, param: string): unknown {
  switch (param) {
    case 'index':
      return true;
    case 'doc_values':
      return fm.type !== 'binary' && fm.type !== 'text' && fm.type !== 'match_only_text';
    case 'store':
      return false;
    case 'format':
      return fm.type === 'date_nanos' ? 'strict_date_optional_time_nanos||epoch_millis' : 'strict_date_optional_time||epoch_millis';
    case 'analyzer':
      return 'default';
    case 'enabled':
      return true;
    default:
      return null;
  }
}

function checkFieldUpdate(a: FieldMapping, b: FieldMapping, path: string): void {
  const aObj = a.type === 'object' || a.type === 'nested' || (!a.type && !!a.properties);
  const bObj = b.type === 'object' || b.type === 'nested' || (!b.type && !!b.properties);
  if (aObj && !bObj) throw illegalArgument(`can't merge a non object mapping [${path}] with an object mapping`);
  if (!aObj && bObj) throw illegalArgument(`mapper [${path}] cannot be changed from type [${a.type}] to [${b.type ?? 'object'}]`);
  if (aObj) {
    const an = a.type === 'nested';
    const bn = b.type === 'nested';
    if (an && !bn) throw illegalArgument(`object mapping [${path}] can't be changed from nested to non-nested`);
    if (!an && bn) throw illegalArgument(`object mapping [${path}] can't be changed from non-nested to nested`);
    if (b.enabled !== undefined && (a.enabled ?? true) !== b.enabled) {
      throw new EsError(400, 'mapper_exception', `the [enabled] parameter can't be updated for the object mapping [${path}]`);
    }
    checkPropertiesUpdate(a.properties ?? {}, b.properties ?? {}, path + '.');
    return;
  }
  // ES `FieldAliasMapper.merge`: an alias takes another alias (its path may change), nothing else.
  if (a.type === 'alias') {
    if (b.type !== 'alias') throw illegalArgument(`Cannot merge a field alias mapping [${path}] with a mapping that is not for a field alias.`);
    return;
  }
  if (a.type !== b.type) throw illegalArgument(`mapper [${path}] cannot be changed from type [${a.type}] to [${b.type}]`);
  const conflicts: string[] = [];
  const params = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const p of params) {
    if (UPDATEABLE.has(p)) continue;
    const av = Object.hasOwn(a, p) ? (a as unknown as Obj)[p] : defaultOf(a, p);
    const bv = Object.hasOwn(b, p) ? (b as unknown as Obj)[p] : defaultOf(b, p);
    if (JSON.stringify(av) !== JSON.stringify(bv)) conflicts.push(`Cannot update parameter [${p}] from [${javaString(av)}] to [${javaString(bv)}]`);
  }
  if (a.type === 'constant_keyword' && a.value !== undefined && b.value !== undefined && a.value !== b.value) {
    conflicts.push(`Cannot update parameter [value] from [${javaString(a.value)}] to [${javaString(b.value)}]`);
  }
  if (conflicts.length > 0) throw illegalArgument(`Mapper for [${path}] conflicts with existing mapper:\n\t${conflicts.join('\n\t')}`);
  if (a.fields && b.fields) checkPropertiesUpdate(a.fields, b.fields, path + '.');
}

function checkPropertiesUpdate(a: Record<string, FieldMapping>, b: Record<string, FieldMapping>, prefix: string): void {
  for (const [name, fb] of Object.entries(b)) {
    const fa = ownValue(a, name);
    if (fa) checkFieldUpdate(fa, fb, prefix + name);
  }
}

/**
 * Checks a (parsed) mapping update against the current mapping as ES's `Mapping.merge` does for
 * `PUT /{index}/_mapping`: a leaf may not become an object or the reverse, a type may not change,
 * and non-updateable parameters (`index`, `doc_values`, `store`, `format`, `analyzer`, ...) must keep
 * their values.
 * @throws EsError 400 `illegal_argument_exception` with ES's texts ("can't merge a non object mapping
 *   [x] with an object mapping", "mapper [x] cannot be changed from type [long] to [keyword]",
 *   "Mapper for [x] conflicts with existing mapper:\n\tCannot update parameter [index] from [true] to [false]")
 */
export function checkMappingUpdate(current: Mapping, update: Mapping): void {
  checkPropertiesUpdate(current.properties ?? {}, update.properties ?? {}, '');
  if (update._source !== undefined) checkSourceUpdate(current._source ?? {}, update._source);
}

/**
 * ES `SourceFieldMapper`'s parameters are not updateable: an update that gives `_source` another
 * `enabled`, `mode`, `includes` or `excludes` than the index has is refused (ES's conflict text).
 */
function checkSourceUpdate(a: NonNullable<Mapping['_source']>, b: NonNullable<Mapping['_source']>): void {
  const defaults: Obj = { enabled: true, mode: null, includes: [], excludes: [] };
  const conflicts: string[] = [];
  for (const p of ['enabled', 'mode', 'includes', 'excludes']) {
    if (!Object.hasOwn(b, p)) continue;
    const read = (m: object): unknown => {
      const v = Object.hasOwn(m, p) ? (m as Obj)[p] : defaults[p];
      return p === 'enabled' ? v !== false && v !== 'false' : v;
    };
    const [av, bv] = [read(a), read(b)];
    if (JSON.stringify(av) !== JSON.stringify(bv)) conflicts.push(`Cannot update parameter [${p}] from [${javaString(av)}] to [${javaString(bv)}]`);
  }
  if (conflicts.length > 0) throw illegalArgument(`Mapper for [_source] conflicts with existing mapper:\n\t${conflicts.join('\n\t')}`);
}
