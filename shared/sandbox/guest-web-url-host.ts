// The first half of the guest's URL part (see guest-web-url.ts, rules in guest-web.ts): code
// points, the percent-encode sets, percent-decoding, and the host parser of the WHATWG URL
// Standard — IPv6, IPv4 (with its "ends in a number" rule and hex/octal parts), opaque hosts, and
// domains with their forbidden code points.
//
// Domain to ASCII, in place of the full UTS #46 table: ASCII is lowercased; other text has the
// ideographic and fullwidth full stops mapped to ".", the code points UTS #46 ignores (soft hyphen,
// zero-width space, variation selectors…) removed, NFKC, lowercase and NFC applied, and each
// label that is not ASCII Punycode-encoded as "xn--…"; an "xn--" label must decode to something
// that is not plain ASCII and that this mapping leaves as it is, and U+FFFD, a C1 control, a noncharacter or a zero-width joiner or non-joiner fails
// (the joiner rule's exceptions after a virama are not made). Not applied: the rest of the table's
// mappings and its bidi and hyphen checks.

const HELPERS = String.raw`const chars = (s) => A(I.bind, I.charCodeAt, [s]);
const cut = (s, a, b) => A(W.S.slice, s, b === undefined ? [a] : [a, b]);
const ch = (x) => (x < 0x10000 ? I.fromCharCode(x) : W.cp(x));
const I32 = W.C.Int32Array, EOF = -1;
const fl = (a, b) => (a - (a % b)) / b;
function points(s) {
  const n = s.length, c = chars(s), p = new I32(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    let x = c(i);
    if (x >= 0xd800 && x <= 0xdbff && i + 1 < n) { const y = c(i + 1); if (y >= 0xdc00 && y <= 0xdfff) { x = 0x10000 + ((x - 0xd800) << 10) + (y - 0xdc00); i++; } }
    p[m++] = x;
  }
  return { __proto__: null, p, n: m };
}
const lowc = (x) => I.fromCharCode(x >= 65 && x <= 90 ? x + 32 : x);
function split(s) {
  const out = [], c = chars(s);
  let a = 0;
  for (let i = 0; i <= s.length; i++) if (i === s.length || c(i) === 46) { push(out, cut(s, a, i)); a = i + 1; }
  return out;
}
`;

export const WEB_URL_HOST =
  HELPERS +
  String.raw`const has = (s, x) => { const c = chars(s); for (let i = 0; i < s.length; i++) if (c(i) === x) return true; return false; };
const hexv = (x) => (x >= 48 && x <= 57 ? x - 48 : x >= 65 && x <= 70 ? x - 55 : x >= 97 && x <= 102 ? x - 87 : -1);
const alpha = (x) => (x >= 65 && x <= 90) || (x >= 97 && x <= 122);
const digit = (x) => x >= 48 && x <= 57;
// Percent-encode sets as bits over ASCII (the C0 control set is implied: below U+0020, above U+007E).
const F = 1, Q = 2, SQ = 4, P = 8, U = 16, CO = 32, X = 64, SET = new U8(128), H = new U8(128);
const mark = (t, s, bits) => { const c = chars(s); for (let i = 0; i < s.length; i++) t[c(i)] |= bits; };
mark(SET, " \"<>", F | Q | SQ | P | U | CO | X); mark(SET, "#", Q | SQ | P | U | CO | X); mark(SET, "\u0060", F | P | U | CO | X); mark(SET, "'", SQ | X);
mark(SET, "?^{}", P | U | CO | X); mark(SET, "/:;=@[\\]|", U | CO | X); mark(SET, "$%&+,", CO | X); mark(SET, "!()~", X);
// Forbidden host code points (1) and forbidden domain code points (2).
mark(H, "\u0000\t\n\r #/:<>?@[\\]^|", 3); mark(H, "%\u007f", 2);
for (let i = 0; i < 32; i++) H[i] |= 2;
const HEX = "0123456789ABCDEF", hex2 = (b) => "%" + HEX[b >> 4] + HEX[b & 15];
function pct(x, bit) {
  if (x < 0x80) return x >= 0x20 && x < 0x7f && (SET[x] & bit) === 0 ? I.fromCharCode(x) : hex2(x);
  if (x < 0x800) return hex2(0xc0 | (x >> 6)) + hex2(0x80 | (x & 63));
  if (x < 0x10000) return hex2(0xe0 | (x >> 12)) + hex2(0x80 | ((x >> 6) & 63)) + hex2(0x80 | (x & 63));
  return hex2(0xf0 | (x >> 18)) + hex2(0x80 | ((x >> 12) & 63)) + hex2(0x80 | ((x >> 6) & 63)) + hex2(0x80 | (x & 63));
}
const encode = (s, bit) => { const q = points(s); let out = ""; for (let i = 0; i < q.n; i++) out += pct(q.p[i], bit); return out; };
// Percent-decode, then UTF-8 decode without BOM, with replacement.
function pdecode(s) {
  if (!has(s, 37)) return s;
  try { return W.dURI(s); } catch (_) {}
  const bin = I.unescape(I.encodeURIComponent(s)), n = bin.length, c = chars(bin), out = new U8(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = c(i);
    if (x === 37 && i + 2 < n && hexv(c(i + 1)) >= 0 && hexv(c(i + 2)) >= 0) { out[m++] = hexv(c(i + 1)) * 16 + hexv(c(i + 2)); i += 2; } else out[m++] = x;
  }
  return need("text").utf8(out, m);
}
function v4num(s) {
  const c = chars(s), n = s.length;
  if (n === 0) return -1;
  let r = 10, i = 0, v = 0;
  if (n >= 2 && c(0) === 48 && (c(1) === 120 || c(1) === 88)) { r = 16; i = 2; } else if (n >= 2 && c(0) === 48) { r = 8; i = 1; }
  for (; i < n; i++) { const d = hexv(c(i)); if (d < 0 || d >= r) return -1; v = v * r + d; }
  return v;
}
function endsInNumber(s) {
  const parts = split(s);
  let last = parts.length - 1;
  if (parts[last] === "") { if (last === 0) return false; last--; }
  const t = parts[last], c = chars(t);
  let all = t !== "";
  for (let i = 0; i < t.length; i++) if (!digit(c(i))) all = false;
  return all || v4num(t) >= 0;
}
function ipv4(s) {
  const parts = split(s), nums = [];
  let n = parts.length;
  if (parts[n - 1] === "" && n > 1) n--;
  if (n > 4) return null;
  for (let i = 0; i < n; i++) { const v = v4num(parts[i]); if (v < 0) return null; push(nums, v); }
  for (let i = 0; i < n - 1; i++) if (nums[i] > 255) return null;
  if (nums[n - 1] >= 256 ** (5 - n)) return null;
  let a = nums[n - 1], out = "";
  for (let i = 0; i < n - 1; i++) a += nums[i] * 256 ** (3 - i);
  for (let i = 0; i < 4; i++) { const r = a % 256; out = i === 0 ? "" + r : r + "." + out; a = (a - r) / 256; }
  return out;
}
function ipv6(s, from, to) {
  const a = new I32(8), cc = chars(s), c = (k) => (k < to ? cc(k) : EOF);
  let piece = 0, compress = -1, i = from;
  if (c(i) === 58) { if (c(i + 1) !== 58) return null; i += 2; piece = compress = 1; }
  while (c(i) !== EOF) {
    if (piece === 8) return null;
    if (c(i) === 58) { if (compress >= 0) return null; i++; compress = ++piece; continue; }
    let value = 0, length = 0;
    while (length < 4 && hexv(c(i)) >= 0) { value = value * 16 + hexv(c(i)); i++; length++; }
    if (c(i) === 46) {
      if (length === 0 || piece > 6) return null;
      i -= length;
      let seen = 0;
      while (c(i) !== EOF) {
        let v4 = -1;
        if (seen > 0) { if (c(i) === 46 && seen < 4) i++; else return null; }
        if (!digit(c(i))) return null;
        while (digit(c(i))) { const d = c(i) - 48; if (v4 < 0) v4 = d; else if (v4 === 0) return null; else v4 = v4 * 10 + d; if (v4 > 255) return null; i++; }
        a[piece] = a[piece] * 256 + v4;
        if (++seen === 2 || seen === 4) piece++;
      }
      if (seen !== 4) return null;
      break;
    } else if (c(i) === 58) { i++; if (c(i) === EOF) return null; } else if (c(i) !== EOF) return null;
    a[piece++] = value;
  }
  if (compress >= 0) {
    let swaps = piece - compress;
    piece = 7;
    while (piece !== 0 && swaps > 0) { const t = a[piece]; a[piece] = a[compress + swaps - 1]; a[compress + swaps - 1] = t; piece--; swaps--; }
  } else if (piece !== 8) return null;
  let best = -1, bestLen = 1, out = "", skip = false;
  for (let k = 0; k < 8; ) { if (a[k] !== 0) { k++; continue; } let j = k; while (j < 8 && a[j] === 0) j++; if (j - k > bestLen) { best = k; bestLen = j - k; } k = j; }
  for (let k = 0; k < 8; k++) {
    if (skip && a[k] === 0) continue;
    skip = false;
    if (best === k) { out += k === 0 ? "::" : ":"; skip = true; continue; }
    let v = a[k], h = "";
    do { h = HEX[v & 15] + h; v = v >> 4; } while (v > 0);
    out += A(I.lower, h, []) + (k !== 7 ? ":" : "");
  }
  return "[" + out + "]";
}
// Domain to ASCII: ASCII without an "xn--" in it is only lowercased; the rest is the IDNA part's.
function toAscii(d) {
  const q = points(d);
  let s = "";
  for (let i = 0; i < q.n; i++) { if (q.p[i] >= 0x80) return need("idna").toAscii(d); s += lowc(q.p[i]); }
  const c = chars(s);
  for (let i = 0; i + 3 < s.length; i++) if (c(i) === 120 && c(i + 1) === 110 && c(i + 2) === 45 && c(i + 3) === 45) return need("idna").toAscii(s);
  return s;
}
// The host parser: a serialized host ("[…]" for IPv6), or null for failure.
function hostParse(s, opaque) {
  const c = chars(s), n = s.length;
  if (n > 0 && c(0) === 91) return c(n - 1) === 93 ? ipv6(s, 1, n - 1) : null;
  if (opaque) {
    const q = points(s);
    let out = "";
    for (let i = 0; i < q.n; i++) { const x = q.p[i]; if (x < 0x80 && (H[x] & 1) !== 0) return null; out += pct(x, 0); }
    return out;
  }
  const ascii = toAscii(pdecode(s));
  if (ascii === null || ascii === "") return null;
  const ac = chars(ascii);
  for (let i = 0; i < ascii.length; i++) { const x = ac(i); if (x < 0x80 && (H[x] & 2) !== 0) return null; }
  return endsInNumber(ascii) ? ipv4(ascii) : ascii;
}
`;

/** The IDNA part (domains that are not plain ASCII, or carry an "xn--" label): loaded by the URL part when it meets one. */
export const WEB_IDNA_PART =
  HELPERS +
  String.raw`function adapt(delta, count, first) {
  delta = first ? fl(delta, 700) : fl(delta, 2);
  delta += fl(delta, count);
  let k = 0;
  while (delta > 455) { delta = fl(delta, 35); k += 36; }
  return k + fl(36 * delta, delta + 38);
}
const tOf = (k, bias) => (k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias);
const pdigit = (d) => I.fromCharCode(d < 26 ? 97 + d : 22 + d);
function punyEncode(q) {
  let out = "", b = 0;
  for (let i = 0; i < q.n; i++) if (q.p[i] < 0x80) { out += I.fromCharCode(q.p[i]); b++; }
  let h = b, n = 128, delta = 0, bias = 72;
  if (b > 0) out += "-";
  while (h < q.n) {
    let m = 0x7fffffff;
    for (let i = 0; i < q.n; i++) if (q.p[i] >= n && q.p[i] < m) m = q.p[i];
    delta += (m - n) * (h + 1);
    n = m;
    for (let i = 0; i < q.n; i++) {
      if (q.p[i] < n) delta++;
      if (q.p[i] !== n) continue;
      let v = delta;
      for (let k = 36; ; k += 36) { const t = tOf(k, bias); if (v < t) break; out += pdigit(t + ((v - t) % (36 - t))); v = fl(v - t, 36 - t); }
      out += pdigit(v);
      bias = adapt(delta, h + 1, h === b);
      delta = 0;
      h++;
    }
    delta++;
    n++;
  }
  return out;
}
function punyDecode(s) {
  const c = chars(s), len = s.length, out = new I32(len);
  let basic = -1, m = 0, n = 128, i = 0, bias = 72;
  for (let k = 0; k < len; k++) if (c(k) === 45) basic = k;
  for (let k = 0; k < basic; k++) { if (c(k) >= 0x80) return null; out[m++] = c(k); }
  for (let pos = basic < 0 ? 0 : basic + 1; pos < len; ) {
    const old = i;
    for (let w = 1, k = 36; ; k += 36) {
      if (pos >= len) return null;
      const x = c(pos++), d = x >= 48 && x <= 57 ? x - 22 : x >= 65 && x <= 90 ? x - 65 : x >= 97 && x <= 122 ? x - 97 : 36;
      if (d >= 36) return null;
      i += d * w;
      const t = tOf(k, bias);
      if (d < t) break;
      w *= 36 - t;
      if (i > 0x7fffffff || w > 0x7fffffff) return null;
    }
    bias = adapt(i - old, m + 1, old === 0);
    n += fl(i, m + 1);
    i %= m + 1;
    if (n > 0x10ffff) return null;
    for (let j = m; j > i; j--) out[j] = out[j - 1];
    out[i++] = n;
    m++;
  }
  return { __proto__: null, p: out, n: m };
}
const refused = (x) => x === 0xfffd || (x >= 0x80 && x <= 0x9f) || x === 0x200c || x === 0x200d || (x >= 0xfdd0 && x <= 0xfdef) || (x & 0xfffe) === 0xfffe;
const ignored = (x) => x === 0xad || x === 0x34f || (x >= 0x180b && x <= 0x180f) || x === 0x200b || x === 0x2060 || x === 0xfeff || (x >= 0xfe00 && x <= 0xfe0f);
// The mapping step for text that is not ASCII (see the header).
function mapped(q) {
  let s = "";
  for (let i = 0; i < q.n; i++) { const x = q.p[i]; if (x === 0x3002 || x === 0xff0e || x === 0xff61) s += "."; else if (!ignored(x)) s += ch(x); }
  return A(W.S.normalize, A(I.lower, A(W.S.normalize, s, ["NFKC"]), []), ["NFC"]);
}
function toAscii(d) {
  const q = points(d);
  let ascii = true, s = "", out = "";
  for (let i = 0; i < q.n; i++) if (q.p[i] >= 0x80) ascii = false;
  if (ascii) for (let i = 0; i < q.n; i++) s += lowc(q.p[i]);
  else s = mapped(q);
  const labels = split(s);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i], lq = points(label), lc = chars(label);
    let plain = true;
    for (let j = 0; j < lq.n; j++) { const x = lq.p[j]; if (x >= 0x80) { plain = false; if (refused(x)) return null; } }
    let a = label;
    if (!plain) a = "xn--" + punyEncode(lq);
    else if (label.length >= 4 && lc(0) === 120 && lc(1) === 110 && lc(2) === 45 && lc(3) === 45) {
      const dq = punyDecode(cut(label, 4));
      let wide = false, text = "";
      if (dq !== null) for (let j = 0; j < dq.n; j++) { if (refused(dq.p[j])) return null; if (dq.p[j] >= 0x80) wide = true; text += ch(dq.p[j]); }
      if (!wide || mapped(dq) !== text) return null;
    }
    out += (i > 0 ? "." : "") + a;
  }
  return out;
}
return I.freeze({ __proto__: null, toAscii });`;
