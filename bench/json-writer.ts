/**
 * `node bench/json-writer.ts`: the two ways to write a reply with raw `_source` texts spliced in,
 * on `_search` replies of 10 and 1,000 cities hits: (a) `JSON.stringify` with placeholders replaced
 * afterwards (coordinator/http/json-writer.ts, what Folio uses), (b) a small recursive serializer that
 * writes RawJson texts itself, and for reference (c) plain `JSON.stringify` of parsed sources (the
 * old path, which also paid a `JSON.parse` per hit before). Prints µs per reply (median of rounds).
 */
import { cities } from '../scripts/samples/cities.ts';
import { writeJson } from '../coordinator/http/json-writer.ts';
import { RawJson } from '../shared/raw-json.ts';

/** (b): a recursive serializer; RawJson texts are written as they are. */
function serialize(v: unknown, out: string[]): void {
  if (v instanceof RawJson) out.push(v.text);
  else if (Array.isArray(v)) {
    out.push('[');
    v.forEach((x, i) => {
      if (i > 0) out.push(',');
      if (x === undefined || typeof x === 'function') out.push('null');
      else serialize(x, out);
    });
    out.push(']');
  } else if (v !== null && typeof v === 'object') {
    out.push('{');
    let first = true;
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined || typeof x === 'function') continue;
      if (!first) out.push(',');
      first = false;
      out.push(JSON.stringify(k), ':');
      serialize(x, out);
    }
    out.push('}');
  } else out.push(JSON.stringify(v) ?? 'null');
}

function reply(size: number, raw: boolean): unknown {
  const docs: unknown[] = [];
  for (const d of cities.docs()) {
    if (docs.length === size) break;
    docs.push(d.source);
  }
  return {
    took: 3,
    timed_out: false,
    _shards: { total: 3, successful: 3, skipped: 0, failed: 0 },
    hits: {
      total: { value: 135233, relation: 'eq' },
      max_score: 1,
      hits: docs.map((d, i) => ({ _index: 'cities', _id: String(i), _score: 1, _source: raw ? new RawJson(JSON.stringify(d)) : d })),
    },
  };
}

function time(label: string, rounds: number, fn: () => string): void {
  const ts: number[] = [];
  let len = 0;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    len = fn().length;
    ts.push(performance.now() - t0);
  }
  ts.sort((a, b) => a - b);
  console.log(`${label}: ${(ts[ts.length >> 1] * 1000).toFixed(1)} µs (${len} chars)`);
}

for (const size of [10, 1000]) {
  const rounds = size === 10 ? 20_000 : 300;
  const raw = reply(size, true);
  const parsed = reply(size, false);
  const texts = (parsed as { hits: { hits: { _source: unknown }[] } }).hits.hits.map((h) => JSON.stringify(h._source));
  time(`${size} hits (a) stringify + placeholder splice`, rounds, () => writeJson(raw));
  time(`${size} hits (b) recursive serializer`, rounds, () => {
    const out: string[] = [];
    serialize(raw, out);
    return out.join('');
  });
  time(`${size} hits (c) old: JSON.parse per hit + JSON.stringify`, rounds, () => {
    for (const t of texts) JSON.parse(t);
    return JSON.stringify(parsed);
  });
  time(`${size} hits (a) with ?pretty`, Math.ceil(rounds / 10), () => writeJson(raw, true));
}
