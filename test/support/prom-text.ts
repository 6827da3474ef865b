/**
 * Reads one sample out of a Prometheus text exposition (what `GET /metrics` serves), for tests.
 * @see https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */

/**
 * The value of the first series named `name` that carries every label of `labels`
 * (`a="x",b="y"`, any order, other labels allowed), or undefined when there is none.
 * @example sampleValue(text, 'folio_shard_docs', 'index="cities",shard="0"')
 */
export function sampleValue(text: string, name: string, labels = ''): number | undefined {
  const wanted = labels === '' ? [] : labels.split(/,(?=\w+=)/);
  const line = text
    .split('\n')
    .find((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && wanted.every((w) => l.slice(0, l.lastIndexOf(' ')).includes(w)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}
