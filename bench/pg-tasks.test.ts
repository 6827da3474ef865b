import { describe, expect, it } from 'vitest';
import { buildCorpus } from './corpus.ts';
import type { Corpus } from './corpus.ts';
import { countSql, keysetWhere, pgTasks, sqlString, KEYSET_DEPTH } from './pg-tasks.ts';

describe('tasks', () => {
  const corpus = buildCorpus(150_000);
  const tasks = pgTasks(corpus, '_id');
  const byName = (prefix: string) => tasks.find((t) => t.name.startsWith(prefix))!;

  it('ids are ASCII, so COLLATE "C" (bytes) and Folio\'s _id order (code units) agree', () => {
    expect(corpus.ids.every((id) => /^[\x21-\x7e]+$/.test(id))).toBe(true);
  });

  it('expects pages in population desc order with ties on the id by code unit (as COLLATE "C")', () => {
    const ids = ['b', 'a', 'c', 'aa', 'B', 'd'];
    const population = Float64Array.from([5, 5, 0, 5, 5, 7]);
    const country = ['US', 'FR', 'US', 'US', 'US', 'FR'];
    const small = { size: ids.length, ids, population, country } as unknown as Corpus;
    const [sorted, filtered, keyset, , , , count] = pgTasks(small, '_id');
    expect(sorted.expected).toEqual({ ids: ['d', 'B', 'a', 'aa', 'b', 'c'] });
    expect(filtered.expected).toEqual({ ids: ['B', 'aa', 'b', 'c'] });
    expect(keyset.skip).toMatch(/needs 100010 rows, the corpus has 6/);
    expect(count.expected).toEqual({ count: 4 });
  });

  it('the keyset page starts right after its search_after values and equals the OFFSET page at the same depth', () => {
    const keyset = byName('keyset');
    const offset = byName(`offset ${KEYSET_DEPTH / 1000}k`);
    expect(keyset.expected).toEqual(offset.expected);
    const [pop, id] = keyset.folio.search_after as [number, string];
    expect(keyset.sql).toContain(keysetWhere(pop, id));
    const first = corpus.ids.indexOf((keyset.expected as { ids: string[] }).ids[0]);
    expect(corpus.population[first] < pop || (corpus.population[first] === pop && corpus.ids[first] > id)).toBe(true);
  });

  it('skips a depth the corpus does not reach', () => {
    expect(byName('offset 900k').skip).toMatch(/needs 900010 rows/);
    expect(byName('offset 900k').expected).toBeNull();
  });

  it('counts the matches of a paged statement', () => {
    expect(countSql(byName('full text'))).toBe("SELECT count(*) FROM cities WHERE to_tsvector('simple', name) @@ to_tsquery('simple', 'san')");
    expect(sqlString("O'Brien")).toBe("'O''Brien'");
  });
});
