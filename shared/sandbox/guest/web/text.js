// TextEncoder and TextDecoder (WHATWG Encoding), a web part (rules in guest-web.ts, PARTS).
// TextDecoder speaks utf-8, utf-16le, utf-16be and windows-1252 (with every WHATWG label of each,
// so "latin1" and "ascii" are windows-1252 as on the web), with fatal, ignoreBOM and streaming;
// any other label is a RangeError. Both lean on the engine's native URI functions for speed
// (decodeUtf8, TextEncoder's encode).
//
// Exports beside the two classes: utf8(bytes, n), UTF-8 decode without BOM handling, with
// replacement (the URL part's percent-decoding uses it).
/* global A, I, domString, W, TypeErr, latin1, U8, bytesOf, needs, usvString, named */
'use strict';
const chars = (s) => A(I.bind, I.charCodeAt, [s]);
const LABELS = {
  __proto__: null,
  'unicode-1-1-utf-8': 0,
  unicode11utf8: 0,
  unicode20utf8: 0,
  'utf-8': 0,
  utf8: 0,
  'x-unicode20utf8': 0,
  csunicode: 1,
  'iso-10646-ucs-2': 1,
  'ucs-2': 1,
  unicode: 1,
  unicodefeff: 1,
  'utf-16': 1,
  'utf-16le': 1,
  unicodefffe: 2,
  'utf-16be': 2,
  'ansi_x3.4-1968': 3,
  ascii: 3,
  cp1252: 3,
  cp819: 3,
  csisolatin1: 3,
  ibm819: 3,
  'iso-8859-1': 3,
  'iso-ir-100': 3,
  'iso8859-1': 3,
  iso88591: 3,
  'iso_8859-1': 3,
  'iso_8859-1:1987': 3,
  l1: 3,
  latin1: 3,
  'us-ascii': 3,
  'windows-1252': 3,
  'x-cp1252': 3,
};
const NAMES = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'];
const WINDOWS_1252_C1 = chars(
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178',
);
const isSpace = (x) => x === 9 || x === 10 || x === 12 || x === 13 || x === 32;
function encodingOf(label) {
  const s = domString(label);
  const c = chars(s);
  let a = 0;
  let b = s.length;
  let key = '';
  while (a < b && isSpace(c(a))) a++;
  while (b > a && isSpace(c(b - 1))) b--;
  for (let i = a; i < b; i++) {
    const x = c(i);
    key += I.fromCharCode(x >= 65 && x <= 90 ? x + 32 : x);
  }
  const e = LABELS[key];
  if (e === undefined)
    throw new W.RangeErr("TextDecoder: the encoding label provided ('" + s + "') is not one this sandbox decodes (utf-8, utf-16le, utf-16be, windows-1252).");
  return e;
}
const dictionary = (o, what) => {
  if (o === undefined || o === null) return { __proto__: null };
  if (typeof o !== 'object' && typeof o !== 'function') throw new TypeErr(what + ': the options must be an object.');
  return o;
};
const denseArray = () => A(W.from, W.Arr, [{ __proto__: null, length: 8192 }]);
// Code units collected in a dense array of our own and turned into text 8192 at a time.
function sink() {
  let c = denseArray();
  let n = 0;
  let s = '';
  const flush = () => {
    if (n === 8192) {
      s += A(I.fromCharCode, undefined, c);
      n = 0;
      return;
    }
    if (n > 0) {
      c.length = n;
      s += A(I.fromCharCode, undefined, c);
      c = denseArray();
      n = 0;
    }
  };
  const put = (u) => {
    c[n++] = u;
    if (n === 8192) flush();
  };
  return {
    put,
    cp: (x) => {
      if (x < 0x10000) put(x);
      else {
        x -= 0x10000;
        put(0xd800 + (x >> 10));
        put(0xdc00 + (x & 0x3ff));
      }
    },
    str: (t) => {
      flush();
      s += t;
    },
    done: () => {
      flush();
      return s;
    },
  };
}
const freshUtf8State = () => ({ __proto__: null, need: 0, seen: 0, cp: 0, lo: 0x80, hi: 0xbf });
// The WHATWG UTF-8 decoder over b[from, to); false at the first error when fatal.
function decodeUtf8Slowly(st, b, from, to, out, fatal) {
  for (let i = from; i < to; i++) {
    const x = b[i];
    if (st.need === 0) {
      if (x < 0x80) out.put(x);
      else if (x >= 0xc2 && x <= 0xdf) {
        st.need = 1;
        st.cp = x & 0x1f;
      } else if (x >= 0xe0 && x <= 0xef) {
        if (x === 0xe0) st.lo = 0xa0;
        if (x === 0xed) st.hi = 0x9f;
        st.need = 2;
        st.cp = x & 0xf;
      } else if (x >= 0xf0 && x <= 0xf4) {
        if (x === 0xf0) st.lo = 0x90;
        if (x === 0xf4) st.hi = 0x8f;
        st.need = 3;
        st.cp = x & 7;
      } else {
        if (fatal) return false;
        out.put(0xfffd);
      }
      continue;
    }
    if (x < st.lo || x > st.hi) {
      st.need = st.seen = st.cp = 0;
      st.lo = 0x80;
      st.hi = 0xbf;
      if (fatal) return false;
      out.put(0xfffd);
      i--;
      continue;
    }
    st.lo = 0x80;
    st.hi = 0xbf;
    st.cp = (st.cp << 6) | (x & 0x3f);
    if (++st.seen === st.need) {
      out.cp(st.cp);
      st.need = st.seen = st.cp = 0;
    }
  }
  return true;
}
// Where an incomplete sequence at the end of b[from, to) starts (to when none).
function incompleteTail(b, from, to) {
  let i = to - 1;
  let k = 0;
  while (i >= from && k < 3 && (b[i] & 0xc0) === 0x80) {
    i--;
    k++;
  }
  if (i < from) return to;
  const x = b[i];
  const need = x >= 0xf0 ? 4 : x >= 0xe0 ? 3 : x >= 0xc0 ? 2 : 1;
  return to - i < need ? i : to;
}
// The engine interprets this code, far slower than its native functions (docs/performance.md), so
// valid UTF-8 is decoded by the engine's own decodeURIComponent over escape() of a binary string,
// 64 KB at a time, cut where no sequence is split; a slice it refuses (invalid UTF-8) and the bytes
// a stream leaves incomplete go through the WHATWG decoder above (decodeUtf8Slowly), which holds a
// stream's state between calls.
function decodeUtf8(st, b, n, flush, fatal, out) {
  let k = 0;
  while (k < n) {
    const e = k + 65536 < n ? k + 65536 : n;
    if (st.need === 0) {
      const end = e < n || !flush ? incompleteTail(b, k, e) : e;
      let s;
      if (end > k)
        try {
          s = W.dURI(W.esc(latin1(b, k, end)));
        } catch (_) {
          s = undefined;
        }
      if (s !== undefined) {
        out.str(s);
        k = end;
        continue;
      }
    }
    if (!decodeUtf8Slowly(st, b, k, e, out, fatal)) return false;
    k = e;
  }
  if (flush && st.need !== 0) {
    st.need = st.seen = st.cp = 0;
    st.lo = 0x80;
    st.hi = 0xbf;
    if (fatal) return false;
    out.put(0xfffd);
  }
  return true;
}
// The WHATWG UTF-16 decoder (either byte order): a stream keeps a lead byte and a lead surrogate.
function decodeUtf16(st, b, n, be, flush, fatal, out) {
  for (let i = 0; i < n; i++) {
    if (st.lead < 0) {
      st.lead = b[i];
      continue;
    }
    const u = be ? (st.lead << 8) | b[i] : (b[i] << 8) | st.lead;
    st.lead = -1;
    if (st.sur >= 0) {
      const h = st.sur;
      st.sur = -1;
      if (u >= 0xdc00 && u <= 0xdfff) {
        out.put(h);
        out.put(u);
        continue;
      }
      if (fatal) return false;
      out.put(0xfffd);
    }
    if (u >= 0xd800 && u <= 0xdbff) st.sur = u;
    else if (u >= 0xdc00 && u <= 0xdfff) {
      if (fatal) return false;
      out.put(0xfffd);
    } else out.put(u);
  }
  if (flush && (st.lead >= 0 || st.sur >= 0)) {
    st.lead = st.sur = -1;
    if (fatal) return false;
    out.put(0xfffd);
  }
  return true;
}
class TextDecoder {
  #enc;
  #fatal;
  #ignoreBOM;
  #st;
  #bomSeen = false;
  #stream = false;
  constructor(label = 'utf-8', options = undefined) {
    const enc = encodingOf(label);
    const o = dictionary(options, 'TextDecoder');
    this.#enc = enc;
    this.#fatal = !!o.fatal;
    this.#ignoreBOM = !!o.ignoreBOM;
    this.#st = enc === 0 ? freshUtf8State() : { __proto__: null, lead: -1, sur: -1 };
  }
  get encoding() {
    return NAMES[this.#enc];
  }
  get fatal() {
    return this.#fatal;
  }
  get ignoreBOM() {
    return this.#ignoreBOM;
  }
  decode(input = undefined, options = undefined) {
    const b = input === undefined ? new U8(0) : bytesOf(input);
    if (b === undefined) throw new TypeErr('TextDecoder.decode: the input must be an ArrayBuffer, a typed array or a DataView.');
    const stream = !!dictionary(options, 'TextDecoder.decode').stream;
    const enc = this.#enc;
    const fatal = this.#fatal;
    if (!this.#stream) {
      this.#st = enc === 0 ? freshUtf8State() : { __proto__: null, lead: -1, sur: -1 };
      this.#bomSeen = false;
    }
    this.#stream = stream;
    const n = A(I.TA[2], b, []);
    const out = sink();
    let ok = true;
    if (enc === 0) ok = decodeUtf8(this.#st, b, n, !stream, fatal, out);
    else if (enc === 3)
      for (let i = 0; i < n; i++) {
        const x = b[i];
        out.put(x < 0x80 || x >= 0xa0 ? x : WINDOWS_1252_C1(x - 0x80));
      }
    else ok = decodeUtf16(this.#st, b, n, enc === 2, !stream, fatal, out);
    if (!ok) {
      this.#stream = false;
      throw new TypeErr('TextDecoder.decode: the data is not valid ' + NAMES[enc] + '.');
    }
    let s = out.done();
    if (enc !== 3 && !this.#ignoreBOM && !this.#bomSeen && s.length > 0) {
      this.#bomSeen = true;
      if (A(I.charCodeAt, s, [0]) === 0xfeff) s = A(W.S.slice, s, [1]);
    }
    return s;
  }
}
// Encoding uses encodeURIComponent for the same reason as decodeUtf8.
class TextEncoder {
  get encoding() {
    return 'utf-8';
  }
  encode(input = '') {
    const s = domString(input);
    let bin;
    try {
      bin = I.unescape(I.encodeURIComponent(s));
    } catch (_) {
      bin = I.unescape(I.encodeURIComponent(A(W.S.toWellFormed, s, [])));
    }
    const n = bin.length;
    const out = new U8(n);
    const c = chars(bin);
    for (let i = 0; i < n; i++) out[i] = c(i);
    return out;
  }
  encodeInto(source, destination) {
    needs(2, arguments.length, 'TextEncoder.encodeInto');
    const s = usvString(source);
    if (A(W.TAG, destination, []) !== 'Uint8Array') throw new TypeErr('TextEncoder.encodeInto: the destination must be a Uint8Array.');
    const room = A(W.TL, destination, []);
    const c = chars(s);
    const n = s.length;
    let read = 0;
    let written = 0;
    while (read < n) {
      let x = c(read);
      let units = 1;
      if (x >= 0xd800 && x <= 0xdbff) {
        x = 0x10000 + ((x - 0xd800) << 10) + (c(read + 1) - 0xdc00);
        units = 2;
      }
      const len = x < 0x80 ? 1 : x < 0x800 ? 2 : x < 0x10000 ? 3 : 4;
      if (written + len > room) break;
      if (len === 1) destination[written] = x;
      else if (len === 2) {
        destination[written] = 0xc0 | (x >> 6);
        destination[written + 1] = 0x80 | (x & 63);
      } else if (len === 3) {
        destination[written] = 0xe0 | (x >> 12);
        destination[written + 1] = 0x80 | ((x >> 6) & 63);
        destination[written + 2] = 0x80 | (x & 63);
      } else {
        destination[written] = 0xf0 | (x >> 18);
        destination[written + 1] = 0x80 | ((x >> 12) & 63);
        destination[written + 2] = 0x80 | ((x >> 6) & 63);
        destination[written + 3] = 0x80 | (x & 63);
      }
      read += units;
      written += len;
    }
    return { read, written };
  }
}
const decodeUtf8Replacing = (b, n) => {
  const out = sink();
  decodeUtf8(freshUtf8State(), b, n, true, false, out);
  return out.done();
};
return I.freeze({ __proto__: null, TextEncoder: named(TextEncoder, 'TextEncoder'), TextDecoder: named(TextDecoder, 'TextDecoder'), utf8: decodeUtf8Replacing });
