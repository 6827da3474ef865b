import { describe, expect, it } from 'vitest';
import { copyField, copyLine, COPY_COLUMNS } from './pg-schema.ts';

describe('COPY text format', () => {
  it('escapes backslash, tab, newline and carriage return, and writes null as \\N', () => {
    expect(copyField('a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(copyField(null)).toBe('\\N');
    expect(copyField(undefined)).toBe('\\N');
    expect(copyField(0)).toBe('0');
    expect(copyField('')).toBe('');
  });

  it('writes one field per column, in column order', () => {
    const line = copyLine({
      _id: '1-0',
      sphinxId: 1,
      source: {
        name: 'São\tPaulo',
        altName: '',
        country: 'BR',
        featureCode: 'PPLA',
        adminCode: '27',
        population: 10021295,
        location: { lat: -23.5, lon: -46.6 },
      },
    });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1).split('\t')).toEqual(['1-0', 'São\\tPaulo', '', 'BR', 'PPLA', '27', '10021295', '-23.5', '-46.6']);
    expect(line.slice(0, -1).split('\t')).toHaveLength(COPY_COLUMNS.length);
  });
});
