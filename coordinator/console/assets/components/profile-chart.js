/**
 * Where the time of the last search went, drawn from its `profile` (Folio's shape of ES's Profile
 * API, coordinator/search/profile.ts): one bar group for the coordinator's phases (parse, plan,
 * query or select, merge, fetch, respond) and one per shard (`[node][index][shard]`) with a bar
 * per query-side call (dfs, query, select/sample, select/range) and its fetch (a small page's
 * fetch is fused into the query call: it gets a note, no bar). All bars share one scale; times
 * are wall times measured on the coordinator, network included.
 * @see www.elastic.co/guide/en/elasticsearch/reference/8.15/search-profile.html
 * @see www.elastic.co/guide/en/kibana/8.15/xpack-profiler.html (Kibana's Search Profiler)
 */
import { html } from '../html.js';

/** The recipe's phase order (coordinator/search/search.ts). */
const PHASES = ['parse', 'plan', 'query', 'select', 'merge', 'fetch', 'respond'];

/**
 * One group of the chart; a bar with a `note` has no measured time of its own (fused fetch).
 * @typedef {{ label: string, ms: number, note?: string }} ProfileBar
 * @typedef {{ kind: 'coordinator' | 'shard', id: string, bars: ProfileBar[] }} ProfileGroup
 */

/**
 * The chart's groups: the coordinator's phases first, then each shard in `profile.shards` order.
 * @param {any} profile the `profile` of a `_search` response
 * @returns {ProfileGroup[]}
 */
export function profileGroups(profile) {
  /** @type {ProfileGroup[]} */
  const groups = [];
  const phases = profile?.coordinator?.phases_in_nanos ?? {};
  const phaseBars = PHASES.filter((p) => typeof phases[p] === 'number').map((p) => ({ label: p, ms: phases[p] / 1e6 }));
  if (phaseBars.length > 0) groups.push({ kind: 'coordinator', id: 'coordinator', bars: phaseBars });
  for (const shard of profile?.shards ?? []) {
    /** @type {ProfileBar[]} */
    const bars = (shard.searches?.[0]?.query ?? []).map((/** @type {any} */ q) => ({ label: q.description, ms: q.time_in_nanos / 1e6 }));
    const fetch = shard.fetch;
    // coordinator/search/profile.ts: a fused fetch is a 0 ns entry whose description says so.
    if (fetch && fetch.time_in_nanos === 0 && fetch.description) bars.push({ label: 'fetch', ms: 0, note: fetch.description });
    else if (fetch) bars.push({ label: 'fetch', ms: fetch.time_in_nanos / 1e6 });
    groups.push({ kind: 'shard', id: shard.id, bars });
  }
  return groups;
}

/** Layout of the SVG, in its own units (it scales to the panel's width). */
const WIDTH = 400;
const LABEL_WIDTH = 86;
const VALUE_WIDTH = 60;
const BAR_AREA = WIDTH - LABEL_WIDTH - VALUE_WIDTH;
const ROW = 16;
const HEADER = 18;
const GAP = 9;

/**
 * @param {number} ms
 * @returns {string}
 */
function formatMs(ms) {
  return ms >= 100 ? `${Math.round(ms)} ms` : ms >= 1 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(2)} ms`;
}

/**
 * @param {number} ms
 * @param {number} max the longest bar's time
 * @returns {number} the bar's width in SVG units (at least 1, so every call shows)
 */
function barWidth(ms, max) {
  return Math.max(1, (ms / max) * BAR_AREA);
}

/**
 * The bar chart of one response's `profile` (see {@link profileGroups}), as an SVG figure.
 * @param {object} props
 * @param {any} props.profile the `profile` of the last `_search` response
 * @param {number} props.took the response's `took` (ms)
 */
export function ProfileChart({ profile, took }) {
  const groups = profileGroups(profile);
  const max = Math.max(0.001, ...groups.flatMap((g) => g.bars.map((b) => b.ms)));
  let y = 0;
  const drawn = groups.map((g) => {
    const top = y;
    y += HEADER + g.bars.length * ROW + GAP;
    return html` <g class=${`group ${g.kind}`} data-kind=${g.kind} data-id=${g.id} transform=${`translate(0 ${top})`}>
      <text class="group-title" x="0" y="13">${g.kind === 'shard' ? `shard ${g.id}` : 'coordinator phases'}</text>
      ${g.bars.map(
        (b, i) =>
          html` <g class=${`bar ${b.label.replace('/', '-')}`} transform=${`translate(0 ${HEADER + i * ROW})`}>
            <text class="label" x=${LABEL_WIDTH - 6} y="11" text-anchor="end">${b.label}</text>
            ${b.note === undefined && html`<rect x=${LABEL_WIDTH} y="1" height=${ROW - 4} width=${barWidth(b.ms, max)} rx="2" />`}
            <text class="value" x=${LABEL_WIDTH + (b.note === undefined ? barWidth(b.ms, max) + 4 : 0)} y="11">${b.note ?? formatMs(b.ms)}</text>
          </g>`,
      )}
    </g>`;
  });
  return html` <figure class="profile" data-testid="profile">
    <figcaption>Where the time went <span class="muted">(took ${took} ms; wall times on the coordinator)</span></figcaption>
    <svg viewBox=${`0 0 ${WIDTH} ${Math.max(y, 1)}`} width="100%" role="img" aria-label="search profile">${drawn}</svg>
  </figure>`;
}
