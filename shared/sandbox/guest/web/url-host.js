'use strict';
const has = (s, x) => {
  const c = chars(s);
  for (let i = 0; i < s.length; i++) if (c(i) === x) return true;
  return false;
};
const hexv = (x) => (x >= 48 && x <= 57 ? x - 48 : x >= 65 && x <= 70 ? x - 55 : x >= 97 && x <= 102 ? x - 87 : -1);
const alpha = (x) => (x >= 65 && x <= 90) || (x >= 97 && x <= 122);
const digit = (x) => x >= 48 && x <= 57;
// Percent-encode sets as bits over ASCII (the C0 control set is implied: below U+0020, above U+007E).
const F = 1;
const Q = 2;
const SQ = 4;
const P = 8;
const U = 16;
const CO = 32;
const X = 64;
const SET = new U8(128);
const H = new U8(128);
const mark = (t, s, bits) => {
  const c = chars(s);
  for (let i = 0; i < s.length; i++) t[c(i)] |= bits;
};
mark(SET, ' "<>', F | Q | SQ | P | U | CO | X);
mark(SET, '#', Q | SQ | P | U | CO | X);
mark(SET, '\u0060', F | P | U | CO | X);
mark(SET, "'", SQ | X);
mark(SET, '?^{}', P | U | CO | X);
mark(SET, '/:;=@[\\]|', U | CO | X);
mark(SET, '$%&+,', CO | X);
mark(SET, '!()~', X);
// Forbidden host code points (1) and forbidden domain code points (2).
mark(H, '\u0000\t\n\r #/:<>?@[\\]^|', 3);
mark(H, '%\u007f', 2);
for (let i = 0; i < 32; i++) H[i] |= 2;
const HEX = '0123456789ABCDEF';
const hex2 = (b) => '%' + HEX[b >> 4] + HEX[b & 15];
function pct(x, bit) {
  if (x < 0x80) return x >= 0x20 && x < 0x7f && (SET[x] & bit) === 0 ? I.fromCharCode(x) : hex2(x);
  if (x < 0x800) return hex2(0xc0 | (x >> 6)) + hex2(0x80 | (x & 63));
  if (x < 0x10000) return hex2(0xe0 | (x >> 12)) + hex2(0x80 | ((x >> 6) & 63)) + hex2(0x80 | (x & 63));
  return hex2(0xf0 | (x >> 18)) + hex2(0x80 | ((x >> 12) & 63)) + hex2(0x80 | ((x >> 6) & 63)) + hex2(0x80 | (x & 63));
}
const encode = (s, bit) => {
  const q = points(s);
  let out = '';
  for (let i = 0; i < q.n; i++) out += pct(q.p[i], bit);
  return out;
};
// Percent-decode, then UTF-8 decode without BOM, with replacement.
function pdecode(s) {
  if (!has(s, 37)) return s;
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
    if (x === 37 && i + 2 < n && hexv(c(i + 1)) >= 0 && hexv(c(i + 2)) >= 0) {
      out[m++] = hexv(c(i + 1)) * 16 + hexv(c(i + 2));
      i += 2;
    } else out[m++] = x;
  }
  return need('text').utf8(out, m);
}
function v4num(s) {
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
    const d = hexv(c(i));
    if (d < 0 || d >= r) return -1;
    v = v * r + d;
  }
  return v;
}
function endsInNumber(s) {
  const parts = split(s);
  let last = parts.length - 1;
  if (parts[last] === '') {
    if (last === 0) return false;
    last--;
  }
  const t = parts[last];
  const c = chars(t);
  let all = t !== '';
  for (let i = 0; i < t.length; i++) if (!digit(c(i))) all = false;
  return all || v4num(t) >= 0;
}
function ipv4(s) {
  const parts = split(s);
  const nums = [];
  let n = parts.length;
  if (parts[n - 1] === '' && n > 1) n--;
  if (n > 4) return null;
  for (let i = 0; i < n; i++) {
    const v = v4num(parts[i]);
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
function ipv6(s, from, to) {
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
    while (length < 4 && hexv(c(i)) >= 0) {
      value = value * 16 + hexv(c(i));
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
        if (!digit(c(i))) return null;
        while (digit(c(i))) {
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
function toAscii(d) {
  const q = points(d);
  let s = '';
  for (let i = 0; i < q.n; i++) {
    if (q.p[i] >= 0x80) return need('idna').toAscii(d);
    s += lowc(q.p[i]);
  }
  const c = chars(s);
  for (let i = 0; i + 3 < s.length; i++) if (c(i) === 120 && c(i + 1) === 110 && c(i + 2) === 45 && c(i + 3) === 45) return need('idna').toAscii(s);
  return s;
}
// The host parser: a serialized host ("[…]" for IPv6), or null for failure.
function hostParse(s, opaque) {
  const c = chars(s);
  const n = s.length;
  if (n > 0 && c(0) === 91) return c(n - 1) === 93 ? ipv6(s, 1, n - 1) : null;
  if (opaque) {
    const q = points(s);
    let out = '';
    for (let i = 0; i < q.n; i++) {
      const x = q.p[i];
      if (x < 0x80 && (H[x] & 1) !== 0) return null;
      out += pct(x, 0);
    }
    return out;
  }
  const ascii = toAscii(pdecode(s));
  if (ascii === null || ascii === '') return null;
  const ac = chars(ascii);
  for (let i = 0; i < ascii.length; i++) {
    const x = ac(i);
    if (x < 0x80 && (H[x] & 2) !== 0) return null;
  }
  return endsInNumber(ascii) ? ipv4(ascii) : ascii;
}
