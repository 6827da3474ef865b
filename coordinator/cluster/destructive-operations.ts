/**
 * ES's guard on destructive index operations (`action.destructive_requires_name`, true by default
 * in ES 8): an index expression that is empty, `_all`, or holds a `*` anywhere is refused, so that
 * `DELETE /_all` or `DELETE /*` cannot drop every index by accident. Folio has no close/open APIs,
 * so index deletion is the one operation it guards.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/support/DestructiveOperations.java
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/indices-delete-index.html
 */
import { illegalArgument } from '../../protocol/errors.ts';

/** Whether an expression part names indices by wildcard or `_all` (ES `hasWildcardUsage`). */
function hasWildcardUsage(part: string): boolean {
  return part === '_all' || part.includes('*');
}

/**
 * @throws EsError 400 `illegal_argument_exception` `Wildcard expressions or all indices are not allowed`
 *   when `requiresName` and the comma-separated `expression` is empty or uses a wildcard or `_all`.
 */
export function failDestructive(expression: string | undefined, requiresName: boolean): void {
  if (!requiresName) return;
  const parts = (expression ?? '').split(',').filter((p) => p !== '');
  if (parts.length === 0 || parts.some(hasWildcardUsage)) throw illegalArgument('Wildcard expressions or all indices are not allowed');
}

/** Whether {@link failDestructive} could refuse `expression` (only then must the setting be read). */
export function mayBeDestructive(expression: string | undefined): boolean {
  const parts = (expression ?? '').split(',').filter((p) => p !== '');
  return parts.length === 0 || parts.some(hasWildcardUsage);
}
