/**
 * Shard-side `top_hits`: the bucket's best `from + size` docs in the sort's order (the query
 * phase's collector and comparator, shard-node/engine/collector.ts), with their `_source` texts
 * read from the same generation. Scores, when the sort needs them, come from the query evaluated
 * once per shard with local statistics, as ES's `top_hits` without dfs.
 * @see https://github.com/elastic/elasticsearch/blob/main/server/src/main/java/org/elasticsearch/search/aggregations/metrics/TopHitsAggregator.java
 */
import { MAX_INNER_RESULT_WINDOW } from '../../../protocol/agg-request.ts';
import type { TopHitsAgg } from '../../../protocol/agg-request.ts';
import { illegalArgument } from '../../../protocol/errors.ts';
import type { TopHitsPartial } from '../../../protocol/aggs.ts';
import { SCORE_SORT, sortNeedsScores } from '../../../protocol/sort.ts';
import { collect, type SegmentMatches } from '../collector.ts';
import type { Segment } from '../segment.ts';
import type { AggContext } from './agg-context.ts';
import type { SegDocs } from './doc-values.ts';

const scoreCache = new WeakMap<AggContext, Map<Segment, Float64Array>>();

/** Per segment, the score of each matching doc of the context's query (computed once per collection). */
function scoresOf(ctx: AggContext): Map<Segment, Float64Array> {
  let m = scoreCache.get(ctx);
  if (m) return m;
  m = new Map();
  if (ctx.query) {
    for (const { seg, m: matches } of ctx.searcher.segmentMatches(ctx.query, undefined, true)) {
      const s = new Float64Array(seg.maxDoc);
      if (matches.scores) for (let i = 0; i < matches.docs.length; i++) s[matches.docs[i]] = matches.scores[i];
      m.set(seg, s);
    }
  }
  scoreCache.set(ctx, m);
  return m;
}

/**
 * The shard's top hits of one bucket.
 * @throws EsError 400 when `from + size` is over `index.max_inner_result_window` (100), with ES's text
 */
export function collectTopHits(node: TopHitsAgg, docs: SegDocs[], ctx: AggContext): TopHitsPartial {
  const window = node.from + node.size;
  if (window > MAX_INNER_RESULT_WINDOW) {
    throw illegalArgument(
      `Top hits result window is too large, the top hits aggregator [${node.name}]'s from + size must be less than or equal to: [${MAX_INNER_RESULT_WINDOW}] but was [${window}]. This limit can be set by changing the [index.max_inner_result_window] index level setting.`,
    );
  }
  const sort = node.sort.length > 0 ? node.sort : SCORE_SORT;
  const scoring = sortNeedsScores(sort);
  const scores = scoring ? scoresOf(ctx) : null;
  const bases = new Map(ctx.gen.views.map((v, i) => [v.segment, ctx.gen.bases[i]]));
  const parts: SegmentMatches[] = docs.map(({ seg, docs: ds }) => {
    const s = scores?.get(seg);
    return {
      seg,
      base: bases.get(seg) ?? 0,
      live: null,
      m: { docs: ds, scores: s ? Float64Array.from(ds, (d) => s[d]) : scoring ? new Float64Array(ds.length) : null },
    };
  });
  const r = collect(parts, { sort, k: window }, ctx.fields);
  const hits = r.hits.slice(0, window);
  const sources = ctx.gen.sourceTexts(
    hits.map((h) => h._id),
    node.source,
  );
  return {
    t: 'top',
    total: r.total,
    maxScore: r.maxScore,
    hits: hits.map((h, i) => ({ _index: ctx.index ?? '', _id: h._id, _score: h._score, sort: h.sort, _source: sources[i] })),
  };
}
