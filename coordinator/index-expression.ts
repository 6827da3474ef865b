/**
 * Resolves the `{index}` part of a path (`cities`, `cit*`, `a,b`, `_all`, `*,-mails`) into concrete
 * index names, as ES's `IndexNameExpressionResolver` with the search defaults
 * (`ignore_unavailable=false`, `allow_no_indices=true`, `expand_wildcards=open`).
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/api-conventions.html#api-multi-index
 */
import { indexNotFound } from '../shared/errors.ts';
import { wildcardMatch } from '../shared/wildcard.ts';
import type { ClusterView } from './cluster-view.ts';


/**
 * Concrete index names for an expression, sorted and de-duplicated. An absent expression, `_all`
 * and `*` mean every index. A concrete name that does not exist (after one reload from the nodes)
 * fails; a wildcard that matches nothing is simply empty.
 * @throws EsError 404 index_not_found_exception for a missing concrete name
 */
export async function resolveIndices(expression: string | undefined, view: ClusterView): Promise<string[]> {
  const parts = (expression ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (parts.length === 0 || (parts.length === 1 && parts[0] === '_all')) {
    await view.reload();
    return view.names();
  }
  const hasWildcard = parts.some((p) => p.includes('*'));
  if (hasWildcard) await view.reload();
  const out = new Set<string>();
  for (const part of parts) {
    if (part.startsWith('-') && out.size > 0) {
      const pattern = part.slice(1);
      for (const name of [...out]) if (wildcardMatch(pattern, name)) out.delete(name);
    } else if (part.includes('*') || part === '_all') {
      const pattern = part === '_all' ? '*' : part;
      for (const name of view.names()) if (wildcardMatch(pattern, name)) out.add(name);
    } else {
      await view.get(part).catch(() => {
        throw indexNotFound(part);
      });
      out.add(part);
    }
  }
  return [...out].sort();
}
