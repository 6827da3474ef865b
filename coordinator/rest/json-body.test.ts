import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EsError } from '../../protocol/errors.ts';
import { esErr } from '../../test/support/es-error.ts';
import { isBlankSliced, parseJsonBody, parseJsonBodySliced, SLICED_BODY_CHARS } from './json-body.ts';

describe('parseJsonBody', () => {
  it('parses objects and treats blank text as no body', () => {
    expect(parseJsonBody('{"size": 3, "q": {"a": [1, "x", null]}}')).toEqual({ size: 3, q: { a: [1, 'x', null] } });
    expect(parseJsonBody('  \n')).toBeUndefined();
  });
  it('reports syntax errors with line:col like Jackson', () => {
    const e = esErr(() => parseJsonBody('{"a":1,}'));
    expect([e.status, e.type, e.message]).toEqual([
      400,
      'x_content_parse_exception',
      "[1:8] Unexpected character ('}' (code 125)): was expecting double-quote to start field name",
    ]);
    expect(esErr(() => parseJsonBody('{\n  "a" 1}')).message).toBe(
      "[2:7] Unexpected character ('1' (code 49)): was expecting a colon to separate field name and value",
    );
    expect(esErr(() => parseJsonBody('{"a":1')).message).toBe('[1:7] Unexpected end-of-input: expected close marker for Object');
    expect(esErr(() => parseJsonBody('{"a":tru}')).message).toBe(
      "[1:6] Unrecognized token 'tru': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')",
    );
    expect(esErr(() => parseJsonBody('{"a":[1 2]}')).message).toBe("[1:9] Unexpected character ('2' (code 50)): was expecting comma to separate Array entries");
  });
  it('rejects duplicate keys (strict duplicate detection)', () => {
    expect(esErr(() => parseJsonBody('{"size":1,"size":2}')).message).toBe("[1:11] Duplicate field 'size'");
  });
  it('rejects a non-object top level and trailing values', () => {
    const e = esErr(() => parseJsonBody('[1]'));
    expect([e.type, e.message]).toEqual(['parsing_exception', 'Expected [START_OBJECT] but found [START_ARRAY]']);
    expect(esErr(() => parseJsonBody('"x"')).message).toBe('Expected [START_OBJECT] but found [VALUE_STRING]');
    expect(esErr(() => parseJsonBody('{} {}')).message).toBe('Unexpected token [START_OBJECT] found after the main object.');
  });
  it('limits nesting depth', () => {
    expect(esErr(() => parseJsonBody('{"a":' + '['.repeat(2000) + ']'.repeat(2000) + '}')).message).toContain(
      'Document nesting depth (1001) exceeds the maximum allowed (1000',
    );
  });
  it('agrees with JSON.parse on valid input and only throws 400 EsErrors', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify({ v })),
        ),
        (text) => {
          let parsed: unknown;
          let valid = true;
          try {
            parsed = JSON.parse(text);
          } catch {
            valid = false;
          }
          if (valid && typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
            expect(parseJsonBody(text)).toEqual(parsed);
            return;
          }
          if (text.trim() === '') return;
          const e = esErr(() => parseJsonBody(text));
          expect(e.status).toBe(400);
          // ES reads the first token before anything else, so a scalar root wins over later garbage.
          expect(valid ? ['parsing_exception'] : ['x_content_parse_exception', 'parsing_exception']).toContain(e.type);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('isBlankSliced', () => {
  it('is text.trim() === "", window by window', async () => {
    const big = ' \t\r\n'.repeat(700_000); // 2.8 M characters: three windows
    for (const text of ['', ' ', '\u00a0\ufeff\u2028 ', ' x ', big, big + '{}', '{}' + big, big + '\u00a0', big + 'x' + big]) {
      expect(await isBlankSliced(text), JSON.stringify(text.slice(-5))).toBe(text.trim() === '');
    }
  });
});

/** The value, or the error's status, type and message. */
async function outcome(parse: () => unknown): Promise<unknown> {
  try {
    return { value: await parse() };
  } catch (e) {
    if (!(e instanceof EsError)) throw e;
    return { status: e.status, type: e.type, message: e.message };
  }
}

describe('parseJsonBodySliced', () => {
  // Large bodies: a 60,000-value list in front, then the case (so errors land deep in the text).
  const values = JSON.stringify(Array.from({ length: 60_000 }, (_, i) => `v${i}`));
  const cases = [
    `{"query":{"terms":{"country":${values}}},"size":3}`,
    `{"big":${values},"a":1,}`,
    `{"big":${values},\n  "a" 1}`,
    `{"big":${values},"a":[1 2]}`,
    `{"big":${values},"big":2}`,
    `{"big":${values},"a":tru}`,
    `{"big":${values}`,
    `[${values}]`,
    `{"big":${values}} {}`,
    `{"big":${values},"deep":${'['.repeat(1200)}${']'.repeat(1200)}}`,
    `{"big":${values},"s":"\\u12G4"}`,
    ' '.repeat(SLICED_BODY_CHARS + 10),
    `${' '.repeat(SLICED_BODY_CHARS)}{"a":{"b":[true,false,null,-1.5e3,"\\u00e9"]}}`,
  ];
  for (const [i, text] of cases.entries()) {
    it(`gives parseJsonBody's value or error, in slices: case ${i}`, async () => {
      expect(text.length).toBeGreaterThanOrEqual(SLICED_BODY_CHARS);
      expect(await outcome(() => parseJsonBodySliced(text, 0))).toEqual(await outcome(() => parseJsonBody(text)));
    });
  }
  it('parses small bodies at once, as parseJsonBody', async () => {
    expect(await parseJsonBodySliced('{"size":3}')).toEqual({ size: 3 });
    expect(await outcome(() => parseJsonBodySliced('{"a":1,"a":2}'))).toEqual(await outcome(() => parseJsonBody('{"a":1,"a":2}')));
  });
});
