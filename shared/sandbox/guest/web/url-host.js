// The first piece of the URL part (guest-web.ts; the parser in url-parser.js, the classes in
// url-api.js): the percent-encode sets, percent-decoding, and the host parser of the WHATWG URL
// Standard: IPv6, IPv4 (with its "ends in a number" rule and hex/octal parts), opaque hosts, and
// domains with their forbidden code points. A domain that is not plain ASCII, or carries an "xn--"
// label, goes to the IDNA part (idna.js), loaded the first time one is met.
/* global chars, U8, I, codePoints, W, need, splitDots, push, I32, EOF, A, lowerChar */
/* exported isAlpha, isDigit, FRAGMENT, QUERY, SPECIAL_QUERY, PATH, USERINFO, FORM, percentEncode,
  percentEncodeAll, percentDecode, parseHost */
'use strict';
const hasCode = (s, x) => {
  const c = chars(s);
  for (let i = 0; i < s.length; i++) if (c(i) === x) return true;
  return false;
};
const hexValue = (x) => (x >= 48 && x <= 57 ? x - 48 : x >= 65 && x <= 70 ? x - 55 : x >= 97 && x <= 102 ? x - 87 : -1);
const isAlpha = (x) => (x >= 65 && x <= 90) || (x >= 97 && x <= 122);
const isDigit = (x) => x >= 48 && x <= 57;
// Percent-encode sets as bits over ASCII (the C0 control set is implied: below U+0020, above U+007E).
const FRAGMENT = 1;
const QUERY = 2;
const SPECIAL_QUERY = 4;
const PATH = 8;
const USERINFO = 16;
const COMPONENT = 32;
const FORM = 64;
const ENCODE_SETS = new U8(128);
const FORBIDDEN = new U8(128);
const mark = (t, s, bits) => {
  const c = chars(s);
  for (let i = 0; i < s.length; i++) t[c(i)] |= bits;
};
mark(ENCODE_SETS, ' "<>', FRAGMENT | QUERY | SPECIAL_QUERY | PATH | USERINFO | COMPONENT | FORM);
mark(ENCODE_SETS, '#', QUERY | SPECIAL_QUERY | PATH | USERINFO | COMPONENT | FORM);
mark(ENCODE_SETS, '\u0060', FRAGMENT | PATH | USERINFO | COMPONENT | FORM);
mark(ENCODE_SETS, "'", SPECIAL_QUERY | FORM);
mark(ENCODE_SETS, '?^{}', PATH | USERINFO | COMPONENT | FORM);
mark(ENCODE_SETS, '/:;=@[\\]|', USERINFO | COMPONENT | FORM);
mark(ENCODE_SETS, '$%&+,', COMPONENT | FORM);
mark(ENCODE_SETS, '!()~', FORM);
// Forbidden host code points (1) and forbidden domain code points (2).
mark(FORBIDDEN, '\u0000\t\n\r #/:<>?@[\\]^|', 3);
mark(FORBIDDEN, '%\u007f', 2);
for (let i = 0; i < 32; i++) FORBIDDEN[i] |= 2;
const HEX = '0123456789ABCDEF';
const percentByte = (b) => '%' + HEX[b >> 4] + HEX[b & 15];
function percentEncode(x, bit) {
  if (x < 0x80) return x >= 0x20 && x < 0x7f && (ENCODE_SETS[x] & bit) === 0 ? I.fromCharCode(x) : percentByte(x);
  if (x < 0x800) return percentByte(0xc0 | (x >> 6)) + percentByte(0x80 | (x & 63));
  if (x < 0x10000) return percentByte(0xe0 | (x >> 12)) + percentByte(0x80 | ((x >> 6) & 63)) + percentByte(0x80 | (x & 63));
  return percentByte(0xf0 | (x >> 18)) + percentByte(0x80 | ((x >> 12) & 63)) + percentByte(0x80 | ((x >> 6) & 63)) + percentByte(0x80 | (x & 63));
}
const percentEncodeAll = (s, bit) => {
  const q = codePoints(s);
  let out = '';
  for (let i = 0; i < q.n; i++) out += percentEncode(q.p[i], bit);
  return out;
};
// Percent-decode, then UTF-8 decode without BOM, with replacement.
function percentDecode(s) {
  if (!hasCode(s, 37)) return s;
  try {
    return W.dURI(s);
  } catch (_) {}
  const bin = I.unescape(I.encodeURIComponent(s));
  const n = bin.length;
  const c = chars(bin);
  const out = new U8(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = c(i);
    if (x === 37 && i + 2 < n && hexValue(c(i + 1)) >= 0 && hexValue(c(i + 2)) >= 0) {
      out[m++] = hexValue(c(i + 1)) * 16 + hexValue(c(i + 2));
      i += 2;
    } else out[m++] = x;
  }
  return need('text').utf8(out, m);
}
function ipv4Number(s) {
  const c = chars(s);
  const n = s.length;
  if (n === 0) return -1;
  let r = 10;
  let i = 0;
  let v = 0;
  if (n >= 2 && c(0) === 48 && (c(1) === 120 || c(1) === 88)) {
    r = 16;
    i = 2;
  } else if (n >= 2 && c(0) === 48) {
    r = 8;
    i = 1;
  }
  for (; i < n; i++) {
    const d = hexValue(c(i));
    if (d < 0 || d >= r) return -1;
    v = v * r + d;
  }
  return v;
}
function endsInNumber(s) {
  const parts = splitDots(s);
  let last = parts.length - 1;
  if (parts[last] === '') {
    if (last === 0) return false;
    last--;
  }
  const t = parts[last];
  const c = chars(t);
  let all = t !== '';
  for (let i = 0; i < t.length; i++) if (!isDigit(c(i))) all = false;
  return all || ipv4Number(t) >= 0;
}
function parseIPv4(s) {
  const parts = splitDots(s);
  const nums = [];
  let n = parts.length;
  if (parts[n - 1] === '' && n > 1) n--;
  if (n > 4) return null;
  for (let i = 0; i < n; i++) {
    const v = ipv4Number(parts[i]);
    if (v < 0) return null;
    push(nums, v);
  }
  for (let i = 0; i < n - 1; i++) if (nums[i] > 255) return null;
  if (nums[n - 1] >= 256 ** (5 - n)) return null;
  let a = nums[n - 1];
  let out = '';
  for (let i = 0; i < n - 1; i++) a += nums[i] * 256 ** (3 - i);
  for (let i = 0; i < 4; i++) {
    const r = a % 256;
    out = i === 0 ? '' + r : r + '.' + out;
    a = (a - r) / 256;
  }
  return out;
}
function parseIPv6(s, from, to) {
  const a = new I32(8);
  const cc = chars(s);
  const c = (k) => (k < to ? cc(k) : EOF);
  let piece = 0;
  let compress = -1;
  let i = from;
  if (c(i) === 58) {
    if (c(i + 1) !== 58) return null;
    i += 2;
    piece = compress = 1;
  }
  while (c(i) !== EOF) {
    if (piece === 8) return null;
    if (c(i) === 58) {
      if (compress >= 0) return null;
      i++;
      compress = ++piece;
      continue;
    }
    let value = 0;
    let length = 0;
    while (length < 4 && hexValue(c(i)) >= 0) {
      value = value * 16 + hexValue(c(i));
      i++;
      length++;
    }
    if (c(i) === 46) {
      if (length === 0 || piece > 6) return null;
      i -= length;
      let seen = 0;
      while (c(i) !== EOF) {
        let v4 = -1;
        if (seen > 0) {
          if (c(i) === 46 && seen < 4) i++;
          else return null;
        }
        if (!isDigit(c(i))) return null;
        while (isDigit(c(i))) {
          const d = c(i) - 48;
          if (v4 < 0) v4 = d;
          else if (v4 === 0) return null;
          else v4 = v4 * 10 + d;
          if (v4 > 255) return null;
          i++;
        }
        a[piece] = a[piece] * 256 + v4;
        if (++seen === 2 || seen === 4) piece++;
      }
      if (seen !== 4) return null;
      break;
    } else if (c(i) === 58) {
      i++;
      if (c(i) === EOF) return null;
    } else if (c(i) !== EOF) return null;
    a[piece++] = value;
  }
  if (compress >= 0) {
    let swaps = piece - compress;
    piece = 7;
    while (piece !== 0 && swaps > 0) {
      const t = a[piece];
      a[piece] = a[compress + swaps - 1];
      a[compress + swaps - 1] = t;
      piece--;
      swaps--;
    }
  } else if (piece !== 8) return null;
  let best = -1;
  let bestLen = 1;
  let out = '';
  let skip = false;
  for (let k = 0; k < 8;) {
    if (a[k] !== 0) {
      k++;
      continue;
    }
    let j = k;
    while (j < 8 && a[j] === 0) j++;
    if (j - k > bestLen) {
      best = k;
      bestLen = j - k;
    }
    k = j;
  }
  for (let k = 0; k < 8; k++) {
    if (skip && a[k] === 0) continue;
    skip = false;
    if (best === k) {
      out += k === 0 ? '::' : ':';
      skip = true;
      continue;
    }
    let v = a[k];
    let h = '';
    do {
      h = HEX[v & 15] + h;
      v = v >> 4;
    } while (v > 0);
    out += A(I.lower, h, []) + (k !== 7 ? ':' : '');
  }
  return '[' + out + ']';
}
// Domain to ASCII: ASCII without an "xn--" in it is only lowercased; the rest is the IDNA part's.
function domainToAscii(d) {
  const q = codePoints(d);
  let s = '';
  for (let i = 0; i < q.n; i++) {
    if (q.p[i] >= 0x80) return need('idna').toAscii(d);
    s += lowerChar(q.p[i]);
  }
  const c = chars(s);
  for (let i = 0; i + 3 < s.length; i++) if (c(i) === 120 && c(i + 1) === 110 && c(i + 2) === 45 && c(i + 3) === 45) return need('idna').toAscii(s);
  return s;
}
// The host parser: a serialized host ("[…]" for IPv6), or null for failure.
function parseHost(s, opaque) {
  const c = chars(s);
  const n = s.length;
  if (n > 0 && c(0) === 91) return c(n - 1) === 93 ? parseIPv6(s, 1, n - 1) : null;
  if (opaque) {
    const q = codePoints(s);
    let out = '';
    for (let i = 0; i < q.n; i++) {
      const x = q.p[i];
      if (x < 0x80 && (FORBIDDEN[x] & 1) !== 0) return null;
      out += percentEncode(x, 0);
    }
    return out;
  }
  const ascii = domainToAscii(percentDecode(s));
  if (ascii === null || ascii === '') return null;
  const ac = chars(ascii);
  for (let i = 0; i < ascii.length; i++) {
    const x = ac(i);
    if (x < 0x80 && (FORBIDDEN[x] & 2) !== 0) return null;
  }
  return endsInNumber(ascii) ? parseIPv4(ascii) : ascii;
}
