/**
 * A bulk's dynamic mapping updates: the new fields of the items' documents are added to each
 * index's mapping in the cluster state before the items are routed, as ES's primary asks the master
 * for the mapping update and then indexes against it; an item whose fields cannot be added
 * (`dynamic: strict`, `index.mapping.nested_objects.limit`) fails alone.
 * @see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/dynamic-mapping.html
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/action/bulk/TransportShardBulkAction.java
 */
import { EsError } from '../../protocol/errors.ts';
import type { Mapping } from '../../protocol/mapping.ts';
import { checkNestedObjectsLimit, DEFAULT_NESTED_OBJECTS_LIMIT, inferMappingUpdate, mergeMappings } from '../../shared/dynamic-mapping.ts';
import type { EventLoopSlices } from '../../shared/event-loop-slices.ts';
import type { ClusterView } from '../cluster/cluster-view.ts';
import { intValue } from '../cluster/index-setting-definitions.ts';
import type { IndexView } from '../cluster/index-view.ts';
import type { BulkItem } from '../rest/bulk-parse.ts';
import type { BulkItems } from '../rest/bulk-items.ts';

/** The document whose new fields an item may add to the mapping (an update's `doc`, else its `upsert`), or undefined. */
function dynamicDocOf(item: BulkItem): Record<string, unknown> | undefined {
  if (item.action === 'delete') return undefined;
  const doc = item.action === 'update' ? (item.source?.doc ?? item.source?.upsert) : item.source;
  return doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : undefined;
}

/**
 * The dynamic mapping update of a bulk's items on one index, inferred from `stored` (the mapping as
 * the cluster state holds it): each item's new fields against `stored` plus the fields of the items
 * before it, in order. An item whose fields cannot be added (`dynamic: strict`) fails alone, in
 * `failures`. Fields already mapped are never re-inferred, so the update adds to `stored` without
 * conflict; a value that does not fit its mapped type (`"abc"` for a `long`; `1.5` is coerced) is
 * the shard's per-item `document_parsing_exception`, as in ES.
 * @returns the union of the new fields, or null when there are none
 */
export function inferBulkMappingUpdate(
  stored: Mapping,
  docs: readonly (readonly [position: number, doc: Record<string, unknown>])[],
  failures: Map<number, unknown>,
): Mapping | null {
  let current = stored;
  let update: Mapping | null = null;
  for (const [i, doc] of docs) {
    try {
      const added = inferMappingUpdate(current, doc);
      if (!added) continue;
      update = update ? mergeMappings(update, added) : added;
      current = mergeMappings(current, added);
    } catch (err) {
      failures.set(i, err);
    }
  }
  return update;
}

/** The index's `index.mapping.nested_objects.limit` (ES's default 10000 when not set). */
function nestedObjectsLimitOf(view: IndexView): number {
  const limit = view.metadata.settings?.['index.mapping.nested_objects.limit'];
  return limit === undefined ? DEFAULT_NESTED_OBJECTS_LIMIT : intValue(limit, DEFAULT_NESTED_OBJECTS_LIMIT);
}

/**
 * Adds the new dynamic fields of the items' documents to each index's mapping before they are
 * routed (ES's primary asks the master for the mapping update, then indexes against it). A first
 * pass against the coordinator's cached mapping checks every document against the index's
 * `index.mapping.nested_objects.limit` (an item over it fails alone) and finds the items that may
 * add fields (mappings only grow: an item that adds nothing to it, or only what an earlier
 * candidate adds, adds nothing to the stored one), in event-loop slices; the update itself is
 * inferred inside the cluster-state change from the stored mapping ({@link ClusterView.updateMapping},
 * again after a lost compare-and-swap), so two bulks adding one field with different types at once
 * (`1` → long, `1.5` → float) never conflict: the later one finds the field mapped and its value is
 * coerced on the shard. Items that cannot add their fields fail alone, in `failed`.
 */
export async function applyDynamicMappings(
  items: BulkItems,
  views: Map<string, IndexView | EsError>,
  failed: Map<number, unknown>,
  deps: { view: ClusterView },
  slices: EventLoopSlices,
): Promise<void> {
  const candidates = new Map<string, [number, Record<string, unknown>][]>();
  // Per index, the cached mapping with the fields of the candidates so far: an item whose fields
  // an earlier candidate adds is no candidate (that candidate adds them in the change too).
  const seen = new Map<string, Mapping>();
  const nestedLimits = new Map<string, number>();
  for (let i = 0; i < items.length; i++) {
    const pause = slices.tick();
    if (pause) await pause;
    if (items.action(i) === 'delete') continue;
    const item = items.get(i);
    const view = views.get(item.index!);
    if (!view || view instanceof EsError || failed.has(i)) continue;
    const doc = dynamicDocOf(item);
    if (!doc) continue;
    const mapping = seen.get(item.index!) ?? view.metadata.mappings;
    let nestedLimit = nestedLimits.get(item.index!);
    if (nestedLimit === undefined) nestedLimits.set(item.index!, (nestedLimit = nestedObjectsLimitOf(view)));
    try {
      checkNestedObjectsLimit(mapping, doc, nestedLimit);
    } catch (err) {
      failed.set(i, err);
      continue;
    }
    let added: Mapping | null;
    try {
      added = inferMappingUpdate(mapping, doc);
      if (!added) continue;
      seen.set(item.index!, mergeMappings(mapping, added));
    } catch {
      // refused against the cached mapping (`dynamic: strict`): decided again against the stored one
    }
    const list = candidates.get(item.index!) ?? [];
    list.push([i, doc]);
    candidates.set(item.index!, list);
  }
  for (const [name, docs] of candidates) {
    let failures = new Map<number, unknown>();
    const view = await deps.view.updateMapping(name, (stored) => {
      failures = new Map(); // the last run, on the mapping that was stored, decides
      return inferBulkMappingUpdate(stored, docs, failures);
    });
    views.set(name, view);
    for (const [i, err] of failures) failed.set(i, err);
  }
}
