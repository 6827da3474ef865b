/**
 * A mapping as the mapping APIs print it: `GET /{index}/_mapping` (ES `ObjectMapper.toXContent`,
 * properties sorted by name) and `GET /{index}/_mapping/field/{fields}` (ES `GetFieldMappingsResponse`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-get-mapping.html
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-get-field-mapping.html
 */
import type { FieldMapping, Mapping } from '../../protocol/mapping.ts';
import { setOwn } from '../../shared/own-keys.ts';

function sortedProperties(props: Record<string, FieldMapping>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(props).sort()) setOwn(out, name, fieldResponse(props[name]));
  return out;
}

function fieldResponse(fm: FieldMapping): unknown {
  const { properties, fields, ...rest } = fm;
  const out: Record<string, unknown> = { ...rest };
  if (isObjectType(fm)) {
    // ES writes `"type": "object"` only for an object without properties.
    if (fm.type === 'object' && properties && Object.keys(properties).length > 0) delete out.type;
    if (properties && Object.keys(properties).length > 0) out.properties = sortedProperties(properties);
    return out;
  }
  if (fields && Object.keys(fields).length > 0) out.fields = sortedProperties(fields);
  return out;
}

function isObjectType(fm: FieldMapping): boolean {
  return fm.type === 'object' || fm.type === 'nested' || (!fm.type && fm.properties !== undefined);
}

/**
 * A mapping as `GET /{index}/_mapping` prints it (ES `ObjectMapper.toXContent`): properties sorted
 * by name, `"type": "object"` left out of objects that have properties, and an empty mapping as `{}`.
 */
export function mappingResponse(m: Mapping): Record<string, unknown> {
  const { properties, ...rest } = m;
  const out: Record<string, unknown> = { ...rest };
  if (properties && Object.keys(properties).length > 0) out.properties = sortedProperties(properties);
  return out;
}

/**
 * The body of one index in `GET /{index}/_mapping/field/{fields}` (ES `GetFieldMappingsResponse`):
 * for each mapped leaf field or multi-field whose full path matches one of `patterns` (`*`
 * wildcards), `{full_name, mapping: {leafName: fieldMapping}}`; objects are not listed.
 * @example fieldMappings(m, ['title*']) // {title: {full_name: 'title', mapping: {title: {type: 'text'}}}, ...}
 */
export function fieldMappings(m: Mapping, patterns: readonly string[], matches: (pattern: string, path: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const visit = (props: Record<string, FieldMapping>, prefix: string): void => {
    for (const name of Object.keys(props).sort()) {
      const fm = props[name];
      const path = prefix + name;
      if (isObjectType(fm)) {
        visit(fm.properties ?? {}, path + '.');
        continue;
      }
      if (patterns.some((p) => matches(p, path))) setOwn(out, path, { full_name: path, mapping: { [name]: fieldResponse(fm) } });
      for (const sub of Object.keys(fm.fields ?? {}).sort()) {
        const subPath = `${path}.${sub}`;
        if (patterns.some((p) => matches(p, subPath))) setOwn(out, subPath, { full_name: subPath, mapping: { [sub]: fieldResponse(fm.fields![sub]) } });
      }
    }
  };
  visit(m.properties ?? {}, '');
  return out;
}
