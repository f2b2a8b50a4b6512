'use strict';
const I = W.I;
const A = I.apply;
const U8 = I.U8;
const ST = W.ST;
const TypeErr = I.TypeErr;
const DOMEx = W.DOMEx;
const own = (v) => ({ __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
const dp = (o, k, v) => I.dp(o, k, own(v));
const push = (list, v) => I.dp(list, list.length, own(v));
const str = (v) => {
  if (typeof v === 'symbol') throw new TypeErr('Cannot convert a Symbol value to a string.');
  return I.Str(v);
};
const usv = (v) => A(W.S.toWellFormed, str(v), []);
const named = (C, name) => {
  I.dp(C.prototype, ST, { __proto__: null, value: name, configurable: true });
  return C;
};
const needs = (n, got, what) => {
  if (got < n) throw new TypeErr(what + ': ' + n + ' argument' + (n > 1 ? 's' : '') + ' required, but only ' + got + ' present.');
};
const bytesOf = (v) => {
  if (I.isView(v)) {
    const g = A(W.TAG, v, []) === undefined ? I.DV : I.TA;
    return new U8(A(g[0], v, []), A(g[1], v, []), A(g[2], v, []));
  }
  try {
    A(I.ABG[0], v, []);
  } catch (_) {
    return undefined;
  }
  return new U8(v);
};
const latin1 = (b, from, to) => {
  let s = '';
  const buffer = A(I.TA[0], b, []);
  const base = A(I.TA[1], b, []);
  for (let k = from; k < to; k += 32768) {
    const n = to - k < 32768 ? to - k : 32768;
    const v = new U8(buffer, base + k, n);
    I.dp(v, 'length', { __proto__: null, value: n });
    s += A(I.fromCharCode, undefined, v);
  }
  return s;
};
