import { describe, expect, it } from 'vitest';
import { cellText, downloadOf, resultShape, rowPage, sizeText, stringHead, SMALL_RESULT_CHARS } from './result-shape.ts';

describe('resultShape', () => {
  it('keeps small values whole, as pretty JSON', () => {
    expect(resultShape({ a: 1 })).toEqual({ kind: 'small', text: '{\n  "a": 1\n}' });
    expect(resultShape(undefined)).toEqual({ kind: 'small', text: 'undefined' });
    expect(resultShape('x'.repeat(SMALL_RESULT_CHARS - 2))).toMatchObject({ kind: 'small' });
  });

  it('classifies a long string, rows of objects and other large values', () => {
    expect(resultShape('x'.repeat(SMALL_RESULT_CHARS)).kind).toBe('string');
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: i, ...(i === 3 ? { extra: true } : {}) }));
    expect(resultShape(rows)).toMatchObject({ kind: 'rows', columns: ['id', 'extra'] });
    expect(resultShape(Array.from({ length: 20_000 }, (_, i) => i)).kind).toBe('tree');
    expect(resultShape([...rows, 1]).kind).toBe('tree');
  });
});

describe('bounds', () => {
  it('never cuts a string inside a surrogate pair', () => {
    expect(stringHead('ab😀c', 3)).toBe('ab');
    expect(stringHead('ab😀c', 4)).toBe('ab😀');
  });

  it('pages rows and clamps past the end', () => {
    expect(rowPage(200_000, 0).label).toBe('Rows 1–50 of 200,000');
    expect(rowPage(200_000, 200_000)).toEqual({ start: 199_950, end: 200_000, label: 'Rows 199,951–200,000 of 200,000' });
    expect(rowPage(3, 50)).toEqual({ start: 0, end: 3, label: 'Rows 1–3 of 3' });
  });

  it('cuts cells and says sizes', () => {
    expect(cellText('y'.repeat(500))).toBe(`${'y'.repeat(200)}…`);
    expect(cellText({ a: [1, 2] })).toBe('{ "a": [ 1, 2 ] }');
    expect(cellText(Array.from({ length: 5000 }, () => 1))).toBe('Array(5,000)');
    expect(sizeText({ kind: 'string', value: 'x'.repeat(20_000_000) }, undefined)).toBe('String of 20,000,000 characters');
    expect(sizeText({ kind: 'rows', rows: [{}, {}], columns: [] }, 9_123_456)).toBe('2 rows · 8.7 MB as JSON');
  });

  it('downloads strings as text and the rest as JSON', () => {
    expect(downloadOf('abc')).toEqual({ text: 'abc', extension: 'txt', type: 'text/plain;charset=utf-8' });
    expect(downloadOf([1])).toMatchObject({ text: '[\n  1\n]', extension: 'json' });
  });
});
