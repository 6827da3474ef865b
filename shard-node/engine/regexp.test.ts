import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RegexpAutomaton } from './regexp-automaton.ts';
import { MAX_DERIVATIVE_WORK, TooComplexError } from './regexp-derivatives.ts';
import { RegexpFlags, resolveRegexpFlags } from '../../protocol/regexp-flags.ts';
import { parseRegexp, RegexpSyntaxError, type Rx } from './regexp-parse.ts';

const compile = (pattern: string, flags: number = RegexpFlags.ALL, ci = false) => RegexpAutomaton.build(parseRegexp(pattern, flags, ci));
const accepts = (pattern: string, terms: string[], flags?: number, ci?: boolean) => {
  const a = compile(pattern, flags, ci);
  return terms.filter((t) => a.matches(t));
};

/** Reference semantics: the end positions of the matches of `rx` in `s` starting at `i` (exponential, for tiny inputs). */
function ends(rx: Rx, s: string, i: number): Set<number> {
  switch (rx.t) {
    case 'set': {
      const out = new Set<number>();
      if (i < s.length) {
        const c = s.charCodeAt(i);
        for (let k = 0; k < rx.ranges.length; k += 2) if (c >= rx.ranges[k] && c <= rx.ranges[k + 1]) out.add(i + 1);
      }
      return out;
    }
    case 'eps':
      return new Set([i]);
    case 'none':
      return new Set();
    case 'all':
      return new Set(Array.from({ length: s.length - i + 1 }, (_, k) => i + k));
    case 'cat': {
      let cur = new Set([i]);
      for (const p of rx.parts) {
        const next = new Set<number>();
        for (const j of cur) for (const k of ends(p, s, j)) next.add(k);
        cur = next;
      }
      return cur;
    }
    case 'or': {
      const out = new Set<number>();
      for (const p of rx.parts) for (const k of ends(p, s, i)) out.add(k);
      return out;
    }
    case 'and': {
      let cur = ends(rx.parts[0], s, i);
      for (const p of rx.parts.slice(1)) {
        const other = ends(p, s, i);
        cur = new Set([...cur].filter((k) => other.has(k)));
      }
      return cur;
    }
    case 'rep': {
      const out = new Set<number>();
      let cur = new Set([i]);
      const cap = Math.min(rx.max, rx.min + s.length + 1);
      for (let k = 0; k <= cap; k++) {
        if (k >= rx.min) for (const j of cur) out.add(j);
        const next = new Set<number>();
        for (const j of cur) for (const e of ends(rx.r, s, j)) next.add(e);
        cur = next;
      }
      return out;
    }
    case 'not': {
      const inner = ends(rx.r, s, i);
      const out = new Set<number>();
      for (let j = i; j <= s.length; j++) if (!inner.has(j)) out.add(j);
      return out;
    }
  }
}
const refMatches = (rx: Rx, s: string) => ends(rx, s, 0).has(s.length);

/** Random patterns over a, b, c with every Lucene operator. */
const patternArb: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'b', 'c', '.', '[ab]', '[^a]', '"ab"', '#', '@', '()', '<1-3>', '\\d'),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => x + y),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(${x}|${y})`),
    fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(${x}&${y})`),
    fc.tuple(tie('p'), fc.constantFrom('?', '*', '+', '{2}', '{1,2}', '{0,}', '{3,1}')).map(([x, op]) => `(${x})${op}`),
    tie('p').map((x) => `~(${x})`),
  ),
})).p;

describe('Lucene regexp: parse and match', () => {
  it('matches whole terms, as the ES docs examples', () => {
    expect(accepts('my-.*', ['my-app', 'my-', 'xmy-a', 'my'])).toEqual(['my-app', 'my-']);
    expect(accepts('joh?n(ath[oa]n)', ['jonathon', 'johnathan', 'john', 'jhonathan'])).toEqual(['jonathon', 'johnathan']);
    expect(accepts('ab{2,4}c', ['abc', 'abbc', 'abbbbc', 'abbbbbc'])).toEqual(['abbc', 'abbbbc']);
    expect(accepts('"a.b"*c', ['a.bc', 'a.ba.bc', 'c', 'axbc'])).toEqual(['a.bc', 'a.ba.bc', 'c']);
    expect(accepts('^ab$', ['ab', '^ab$'])).toEqual(['^ab$']); // no anchors in Lucene
    expect(accepts('', ['', 'a'])).toEqual(['']);
  });
  it('optional operators follow the flags', () => {
    expect(accepts('ki@', ['kimchy', 'ki', 'k'])).toEqual(['kimchy', 'ki']);
    expect(accepts('ki@', ['kimchy', 'ki@'], RegexpFlags.NONE)).toEqual(['ki@']);
    expect(accepts('ab~(cd)', ['abcd', 'abce', 'ab', 'abcdd'])).toEqual(['abce', 'ab', 'abcdd']);
    expect(accepts('aaa.+&.+bbb', ['aaabbb', 'aaabb', 'aaaxbbb'])).toEqual(['aaabbb', 'aaaxbbb']);
    expect(accepts('#|a', ['a', '#', ''])).toEqual(['a']);
    expect(accepts('foo<1-100>', ['foo1', 'foo100', 'foo101', 'foo007', 'foo0'])).toEqual(['foo1', 'foo100', 'foo007']);
    expect(accepts('<01-10>', ['01', '10', '1', '11', '001'])).toEqual(['01', '10']);
    expect(accepts('<5-7>', ['5', '7', '8', '05'])).toEqual(['5', '7']);
  });
  it('character classes, escapes and predefined classes', () => {
    expect(accepts('[a-c]+', ['abc', 'abd', ''])).toEqual(['abc']);
    expect(accepts('[^a-c]', ['d', 'a', 'é', 'dd'])).toEqual(['d', 'é']);
    expect(accepts('a\\.b', ['a.b', 'axb'])).toEqual(['a.b']);
    expect(accepts('\\d+\\s\\w', ['12 x', '12x', 'a x'])).toEqual(['12 x']);
    expect(accepts('\\D', ['a', '1'])).toEqual(['a']);
    expect(accepts('[]a]', [']', 'a', 'b'])).toEqual([']', 'a']);
    expect(accepts('.', ['😀', 'ab', ''])).toEqual(['😀']);
  });
  it('case_insensitive folds ASCII letters of characters and strings, not ranges', () => {
    expect(accepts('ab"cd"', ['ABCD', 'aBcD', 'abcx'], RegexpFlags.ALL, true)).toEqual(['ABCD', 'aBcD']);
    expect(accepts('[a-c]', ['B'], RegexpFlags.ALL, true)).toEqual([]);
    expect(accepts('é', ['É'], RegexpFlags.ALL, true)).toEqual([]);
  });
  it("rejects bad syntax with Lucene's messages", () => {
    const msg = (p: string) => {
      try {
        parseRegexp(p, RegexpFlags.ALL, false);
      } catch (e) {
        expect(e).toBeInstanceOf(RegexpSyntaxError);
        return (e as Error).message;
      }
      return null;
    };
    expect(msg('[')).toBe('unexpected end-of-string');
    expect(msg('(ab')).toBe("expected ')' at position 3");
    expect(msg('[ab')).toBe("expected ']' at position 3");
    expect(msg('a{x}')).toBe('integer expected at position 2');
    expect(msg('a{2')).toBe("expected '}' at position 3");
    expect(msg('"ab')).toBe("expected '\"' at position 3");
    expect(msg('ab)')).toBe('end-of-string expected at position 2');
    expect(msg('<1->')).toBe('interval syntax error at position 3');
    expect(msg('a|')).toBe('unexpected end-of-string');
  });
  it('resolves flag names as RegexpFlag.resolveValue', () => {
    expect(resolveRegexpFlags('')).toBe(0xffff);
    expect(resolveRegexpFlags('INTERSECTION|complement')).toBe(RegexpFlags.INTERSECTION | RegexpFlags.COMPLEMENT);
    expect(resolveRegexpFlags('NONE|ALL')).toBe(0xffff);
    expect(resolveRegexpFlags('NONE||')).toBe(0);
    expect(() => resolveRegexpFlags('FOO')).toThrow('Unknown regexp flag [FOO]');
  });
  it('agrees with a reference matcher on random patterns and terms', () => {
    fc.assert(
      fc.property(patternArb, fc.array(fc.stringMatching(/^[abc123]{0,5}$/), { minLength: 1, maxLength: 12 }), (pattern, terms) => {
        const rx = parseRegexp(pattern, RegexpFlags.ALL, false);
        const a = RegexpAutomaton.build(rx);
        for (const t of terms) expect(a.matches(t), `${pattern} on ${JSON.stringify(t)}`).toBe(refMatches(rx, t));
      }),
      { numRuns: 400 },
    );
  });
  it('agrees with a JS RegExp on the operators both have', () => {
    const common: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
      p: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('a', 'b', '.', '[ab]', '[^b]'),
        fc.tuple(tie('p'), tie('p')).map(([x, y]) => x + y),
        fc.tuple(tie('p'), tie('p')).map(([x, y]) => `(${x}|${y})`),
        fc.tuple(tie('p'), fc.constantFrom('?', '*', '+', '{2}', '{1,3}')).map(([x, op]) => `(${x})${op}`),
      ),
    })).p;
    fc.assert(
      fc.property(common, fc.array(fc.stringMatching(/^[abc]{0,6}$/), { maxLength: 10 }), (pattern, terms) => {
        const a = compile(pattern);
        const js = new RegExp(`^(?:${pattern})$`, 'u');
        for (const t of terms) expect(a.matches(t), pattern).toBe(js.test(t));
      }),
    );
  });
});

describe('hostile patterns', () => {
  const timed = (fn: () => unknown): number => {
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  };
  it('matches catastrophic-backtracking patterns in linear time', () => {
    const long = 'a'.repeat(5000);
    for (const p of ['(a+)+b', '(a|a)*b', '(a|aa)*c', '(a*)*b', '(.*a){12}', '(a?){30}a{30}']) {
      const ms = timed(() => {
        const a = compile(p);
        a.matches(long);
        a.matches(long + 'x');
      });
      expect(ms, p).toBeLessThan(200);
    }
  });
  it('refuses a pattern whose automaton would exceed max_determinized_states, quickly', () => {
    const rx = parseRegexp('(a|b)*a(a|b){20}', RegexpFlags.ALL, false);
    let err: unknown;
    const ms = timed(() => {
      try {
        RegexpAutomaton.build(rx, 10_000);
      } catch (e) {
        err = e;
      }
    });
    expect(err).toBeInstanceOf(TooComplexError);
    expect((err as Error).message).toMatch(/would result in more than 10000 states\.$/);
    expect(ms).toBeLessThan(1000);
    expect(RegexpAutomaton.build(parseRegexp('(a|b)*a(a|b){3}', RegexpFlags.ALL, false), 16).size).toBe(16);
  });
  it('bounds the derivative work of huge intersections and complements', () => {
    const p = Array.from({ length: 12 }, (_, i) => `~(.*${'ab'[i % 2]}.{${i}})`).join('&');
    let err: unknown;
    const ms = timed(() => {
      try {
        compile(p, RegexpFlags.ALL).matches('abababab');
      } catch (e) {
        err = e;
      }
    });
    expect(ms).toBeLessThan(2000);
    if (err) expect(err).toBeInstanceOf(TooComplexError);
    expect(MAX_DERIVATIVE_WORK).toBeGreaterThan(0);
  });
});
