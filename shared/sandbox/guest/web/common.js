// The helpers every web part starts with (guest-web.ts says what a part is and the rules each keeps):
// own-data definitions, WebIDL string conversions, the toStringTag of an interface, and bytes to a
// binary string in native calls (a view with an own length, so the engine never asks a shared
// getter for it). Compiled with each part, so it stays a few lines. The part's scope: W is the
// core's WEB (what guest/prelude-core.js captured before any pack ran), need(name) loads another
// part; I is the core's captured intrinsics and A their Reflect.apply, the one way a part calls.
/* global W */
/* exported I, A, U8, toStringTag, TypeErr, DOMEx, define, push, domString, usvString, named, needs,
  bytesOf, latin1 */
'use strict';
const I = W.I;
const A = I.apply;
const U8 = I.U8;
const toStringTag = W.ST;
const TypeErr = I.TypeErr;
const DOMEx = W.DOMEx;
const dataProperty = (v) => ({ __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
const define = (o, k, v) => I.dp(o, k, dataProperty(v));
const push = (list, v) => I.dp(list, list.length, dataProperty(v));
const domString = (v) => {
  if (typeof v === 'symbol') throw new TypeErr('Cannot convert a Symbol value to a string.');
  return I.Str(v);
};
const usvString = (v) => A(W.S.toWellFormed, domString(v), []);
const named = (C, name) => {
  I.dp(C.prototype, toStringTag, { __proto__: null, value: name, configurable: true });
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
