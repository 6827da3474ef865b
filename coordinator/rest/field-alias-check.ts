/**
 * The check of a whole mapping's field aliases (ES `FieldAliasMapper.validate`), run on a created or
 * merged mapping once it is parsed (mapping-parse.ts parses each alias alone), as ES runs it when it
 * builds the mapping lookup: its errors are not wrapped in "Failed to parse mapping".
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/FieldAliasMapper.java
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/NestedLookup.java
 */
import { EsError, illegalArgument } from '../../protocol/errors.ts';
import { fieldAliases, flatFields, type Mapping } from '../../protocol/mapping.ts';
import { ownValue } from '../../shared/own-keys.ts';

/** The full path of the innermost `nested` object holding `path` (ES `NestedLookup.getNestedParent`), or null. */
function nestedParent(m: Mapping, path: string): string | null {
  let props = m.properties ?? {};
  let parent: string | null = null;
  const parts = path.split('.');
  for (let i = 0; i < parts.length - 1; i++) {
    const fm = ownValue(props, parts[i]);
    if (!fm || !fm.properties) break;
    if (fm.type === 'nested') parent = parts.slice(0, i + 1).join('.');
    props = fm.properties;
  }
  return parent;
}

/**
 * ES `FieldAliasMapper.validate` over a whole (created or merged) mapping: an alias may not refer
 * to itself, must refer to an existing field (not an object) that is not another alias, and must
 * sit in the same `nested` scope as its target. ES runs it when it builds the mapping lookup, so
 * the errors are not wrapped in "Failed to parse mapping".
 * @throws EsError 400 `mapper_parsing_exception` (`illegal_argument_exception` for the nested scope) with ES's texts
 * @see https://github.com/elastic/elasticsearch/blob/8.15/server/src/main/java/org/elasticsearch/index/mapper/FieldAliasMapper.java
 */
export function checkFieldAliases(m: Mapping): void {
  const fields = flatFields(m);
  for (const [name, path] of fieldAliases(m)) {
    const bad = (why: string) => new EsError(400, 'mapper_parsing_exception', `Invalid [path] value [${path}] for field alias [${name}]: ${why}`);
    if (path === name) throw bad('an alias cannot refer to itself.');
    const target = fields.get(path);
    if (!target) throw bad('an alias must refer to an existing field in the mappings.');
    if (target.type === 'alias') throw bad('an alias cannot refer to another alias.');
    const aliasScope = nestedParent(m, name);
    const pathScope = nestedParent(m, path);
    if (aliasScope !== pathScope) {
      throw illegalArgument(
        `Invalid [path] value [${path}] for field alias [${name}]: an alias must have the same nested scope as its target. ` +
          (aliasScope === null ? 'The alias is not nested' : `The alias's nested scope is [${aliasScope}]`) +
          ', but ' +
          (pathScope === null ? 'the target is not nested.' : `the target's nested scope is [${pathScope}].`),
      );
    }
  }
}
