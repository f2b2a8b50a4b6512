// The conversion table of the scalar ABI: what each runtime must accept and refuse, exactly.

import { describe, expect, it } from 'vitest';
import { checkWasmArguments, convertWasmResult, type ScalarSignature } from './wasm-scalars.ts';

const i32: ScalarSignature = { as: 'tile', params: ['i32'], results: ['i32'] };
const f32: ScalarSignature = { as: 'shrink', params: ['f32'], results: ['f32'] };
const f64: ScalarSignature = { as: 'scale', params: ['f64'], results: ['f64'] };
const pair: ScalarSignature = { as: 'add', params: ['i32', 'f64'], results: [] };

describe('checkWasmArguments', () => {
  it.each([0, -0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 65536])('accepts i32 %d', (value) => {
    expect(checkWasmArguments(i32, [value])).toEqual({ ok: true, value: [value] });
  });

  it.each([
    [2 ** 31, '`tile` argument 1 expects an i32 between -2147483648 and 2147483647, got 2147483648'],
    [-(2 ** 31) - 1, '`tile` argument 1 expects an i32 between -2147483648 and 2147483647, got -2147483649'],
    [2 ** 53, '`tile` argument 1 expects an i32 between -2147483648 and 2147483647, got 9007199254740992'],
    [1.5, '`tile` argument 1 expects an i32 (an integer), got 1.5'],
    [Number.NaN, '`tile` argument 1 expects an i32 (an integer), got NaN'],
    [Number.POSITIVE_INFINITY, '`tile` argument 1 expects an i32 (an integer), got Infinity'],
    [Number.NEGATIVE_INFINITY, '`tile` argument 1 expects an i32 (an integer), got -Infinity'],
    ['7', '`tile` argument 1 expects a number, got a string'],
    [7n, '`tile` argument 1 expects a number, got a bigint'],
    [true, '`tile` argument 1 expects a number, got a boolean'],
    [null, '`tile` argument 1 expects a number, got null'],
    [undefined, '`tile` argument 1 expects a number, got undefined'],
    [{ valueOf: () => 1 }, '`tile` argument 1 expects a number, got an object'],
    [[1], '`tile` argument 1 expects a number, got an array'],
  ])('rejects i32 %s', (value, message) => {
    expect(checkWasmArguments(i32, [value])).toEqual({ ok: false, code: 'wasm-argument', message });
  });

  it.each([0, -0, 1.5, -1e308, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE])(
    'passes f32/f64 %d unchanged',
    (value) => {
      expect(checkWasmArguments(f32, [value])).toEqual({ ok: true, value: [value] });
      expect(checkWasmArguments(f64, [value])).toEqual({ ok: true, value: [value] });
    },
  );

  it('rejects non-numbers for floats', () => {
    expect(checkWasmArguments(f64, ['1.5'])).toEqual({ ok: false, code: 'wasm-argument', message: '`scale` argument 1 expects a number, got a string' });
  });

  it('checks the count and the list itself', () => {
    expect(checkWasmArguments(pair, [1])).toEqual({ ok: false, code: 'wasm-argument', message: '`add` takes 2 arguments (i32, f64), got 1' });
    expect(checkWasmArguments(pair, [1, 2, 3])).toEqual({ ok: false, code: 'wasm-argument', message: '`add` takes 2 arguments (i32, f64), got 3' });
    expect(checkWasmArguments({ as: 'noop', params: [], results: [] }, [1])).toEqual({
      ok: false,
      code: 'wasm-argument',
      message: '`noop` takes 0 arguments (none), got 1',
    });
    expect(checkWasmArguments(i32, [])).toEqual({ ok: false, code: 'wasm-argument', message: '`tile` takes 1 argument (i32), got 0' });
    expect(checkWasmArguments(pair, { 0: 1, 1: 2, length: 2 })).toEqual({
      ok: false,
      code: 'wasm-argument',
      message: '`add` was called without an argument list',
    });
    expect(checkWasmArguments(pair, [2.5, 1])).toEqual({ ok: false, code: 'wasm-argument', message: '`add` argument 1 expects an i32 (an integer), got 2.5' });
    expect(checkWasmArguments(pair, [2, 'x'])).toEqual({ ok: false, code: 'wasm-argument', message: '`add` argument 2 expects a number, got a string' });
  });

  it('returns a fresh array, never the caller’s', () => {
    const args = [1, 2.5];
    const result = checkWasmArguments(pair, args);
    expect(result.ok && result.value).toEqual([1, 2.5]);
    expect(result.ok && result.value).not.toBe(args);
  });
});

describe('convertWasmResult', () => {
  it('maps void to undefined and checks scalar results', () => {
    expect(convertWasmResult(pair, undefined)).toEqual({ ok: true, value: undefined });
    expect(convertWasmResult(pair, 0)).toEqual({ ok: false, code: 'internal', message: '`add` returned a value but is declared void' });
    expect(convertWasmResult(i32, -5)).toEqual({ ok: true, value: -5 });
    expect(convertWasmResult(i32, 2 ** 31)).toEqual({
      ok: false,
      code: 'internal',
      message: '`tile` returned an unexpected value: expects an i32 between -2147483648 and 2147483647, got 2147483648',
    });
    expect(convertWasmResult(f64, Number.NaN)).toEqual({ ok: true, value: Number.NaN });
    expect(convertWasmResult(f32, undefined)).toEqual({
      ok: false,
      code: 'internal',
      message: '`shrink` returned an unexpected value: expects a number, got undefined',
    });
  });
});
