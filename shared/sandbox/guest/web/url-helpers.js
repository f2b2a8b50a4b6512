// Code points and dot-separated labels: what the URL part and the IDNA part both start with (after
// common.js). A string is read through its own charCodeAt, bound once (chars), never by index
// methods a pack could have replaced.
/* global A, I, W, push */
/* exported chars, slice, fromCodePoint, I32, EOF, floorDiv, codePoints, lowerChar, splitDots */
'use strict';
const chars = (s) => A(I.bind, I.charCodeAt, [s]);
const slice = (s, a, b) => A(W.S.slice, s, b === undefined ? [a] : [a, b]);
const fromCodePoint = (x) => (x < 0x10000 ? I.fromCharCode(x) : W.cp(x));
const I32 = W.C.Int32Array;
const EOF = -1;
const floorDiv = (a, b) => (a - (a % b)) / b;
function codePoints(s) {
  const n = s.length;
  const c = chars(s);
  const p = new I32(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    let x = c(i);
    if (x >= 0xd800 && x <= 0xdbff && i + 1 < n) {
      const y = c(i + 1);
      if (y >= 0xdc00 && y <= 0xdfff) {
        x = 0x10000 + ((x - 0xd800) << 10) + (y - 0xdc00);
        i++;
      }
    }
    p[m++] = x;
  }
  return { __proto__: null, p, n: m };
}
const lowerChar = (x) => I.fromCharCode(x >= 65 && x <= 90 ? x + 32 : x);
function splitDots(s) {
  const out = [];
  const c = chars(s);
  let a = 0;
  for (let i = 0; i <= s.length; i++)
    if (i === s.length || c(i) === 46) {
      push(out, slice(s, a, i));
      a = i + 1;
    }
  return out;
}
