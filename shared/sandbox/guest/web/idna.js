// The IDNA part: domain to ASCII for a domain that is not plain ASCII or carries an "xn--" label,
// loaded by the URL part when it meets one (url-host.js). In place of the full UTS #46 table: ASCII
// is lowercased; other text has the ideographic and fullwidth full stops mapped to ".", the code
// points UTS #46 ignores (soft hyphen, zero-width space, variation selectors…) removed, NFKC,
// lowercase and NFC applied, and each label that is not ASCII Punycode-encoded as "xn--…"; an
// "xn--" label must decode to something that is not plain ASCII and that this mapping leaves as it
// is, and U+FFFD, a C1 control, a noncharacter or a zero-width joiner or non-joiner fails (the
// joiner rule's exceptions after a virama are not made). Not applied: the rest of the table's
// mappings and its bidi and hyphen checks.
/* global floorDiv, I, chars, I32, fromCodePoint, A, W, codePoints, lowerChar, splitDots, slice */
'use strict';
function adapt(delta, count, first) {
  delta = first ? floorDiv(delta, 700) : floorDiv(delta, 2);
  delta += floorDiv(delta, count);
  let k = 0;
  while (delta > 455) {
    delta = floorDiv(delta, 35);
    k += 36;
  }
  return k + floorDiv(36 * delta, delta + 38);
}
const threshold = (k, bias) => (k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias);
const punyDigit = (d) => I.fromCharCode(d < 26 ? 97 + d : 22 + d);
function punyEncode(q) {
  let out = '';
  let b = 0;
  for (let i = 0; i < q.n; i++)
    if (q.p[i] < 0x80) {
      out += I.fromCharCode(q.p[i]);
      b++;
    }
  let h = b;
  let n = 128;
  let delta = 0;
  let bias = 72;
  if (b > 0) out += '-';
  while (h < q.n) {
    let m = 0x7fffffff;
    for (let i = 0; i < q.n; i++) if (q.p[i] >= n && q.p[i] < m) m = q.p[i];
    delta += (m - n) * (h + 1);
    n = m;
    for (let i = 0; i < q.n; i++) {
      if (q.p[i] < n) delta++;
      if (q.p[i] !== n) continue;
      let v = delta;
      for (let k = 36; ; k += 36) {
        const t = threshold(k, bias);
        if (v < t) break;
        out += punyDigit(t + ((v - t) % (36 - t)));
        v = floorDiv(v - t, 36 - t);
      }
      out += punyDigit(v);
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
  const c = chars(s);
  const len = s.length;
  const out = new I32(len);
  let basic = -1;
  let m = 0;
  let n = 128;
  let i = 0;
  let bias = 72;
  for (let k = 0; k < len; k++) if (c(k) === 45) basic = k;
  for (let k = 0; k < basic; k++) {
    if (c(k) >= 0x80) return null;
    out[m++] = c(k);
  }
  for (let pos = basic < 0 ? 0 : basic + 1; pos < len;) {
    const old = i;
    for (let w = 1, k = 36; ; k += 36) {
      if (pos >= len) return null;
      const x = c(pos++);
      const d = x >= 48 && x <= 57 ? x - 22 : x >= 65 && x <= 90 ? x - 65 : x >= 97 && x <= 122 ? x - 97 : 36;
      if (d >= 36) return null;
      i += d * w;
      const t = threshold(k, bias);
      if (d < t) break;
      w *= 36 - t;
      if (i > 0x7fffffff || w > 0x7fffffff) return null;
    }
    bias = adapt(i - old, m + 1, old === 0);
    n += floorDiv(i, m + 1);
    i %= m + 1;
    if (n > 0x10ffff) return null;
    for (let j = m; j > i; j--) out[j] = out[j - 1];
    out[i++] = n;
    m++;
  }
  return { __proto__: null, p: out, n: m };
}
const refused = (x) => x === 0xfffd || (x >= 0x80 && x <= 0x9f) || x === 0x200c || x === 0x200d || (x >= 0xfdd0 && x <= 0xfdef) || (x & 0xfffe) === 0xfffe;
const ignored = (x) =>
  x === 0xad || x === 0x34f || (x >= 0x180b && x <= 0x180f) || x === 0x200b || x === 0x2060 || x === 0xfeff || (x >= 0xfe00 && x <= 0xfe0f);
// The mapping step for text that is not ASCII (see the header).
function mapped(q) {
  let s = '';
  for (let i = 0; i < q.n; i++) {
    const x = q.p[i];
    if (x === 0x3002 || x === 0xff0e || x === 0xff61) s += '.';
    else if (!ignored(x)) s += fromCodePoint(x);
  }
  return A(W.S.normalize, A(I.lower, A(W.S.normalize, s, ['NFKC']), []), ['NFC']);
}
function toAscii(d) {
  const q = codePoints(d);
  let ascii = true;
  let s = '';
  let out = '';
  for (let i = 0; i < q.n; i++) if (q.p[i] >= 0x80) ascii = false;
  if (ascii) for (let i = 0; i < q.n; i++) s += lowerChar(q.p[i]);
  else s = mapped(q);
  const labels = splitDots(s);
  for (let i = 0; i < labels.length; i++) {
    const label = labels[i];
    const lq = codePoints(label);
    const lc = chars(label);
    let plain = true;
    for (let j = 0; j < lq.n; j++) {
      const x = lq.p[j];
      if (x >= 0x80) {
        plain = false;
        if (refused(x)) return null;
      }
    }
    let a = label;
    if (!plain) a = 'xn--' + punyEncode(lq);
    else if (label.length >= 4 && lc(0) === 120 && lc(1) === 110 && lc(2) === 45 && lc(3) === 45) {
      const dq = punyDecode(slice(label, 4));
      let wide = false;
      let text = '';
      if (dq !== null)
        for (let j = 0; j < dq.n; j++) {
          if (refused(dq.p[j])) return null;
          if (dq.p[j] >= 0x80) wide = true;
          text += fromCodePoint(dq.p[j]);
        }
      if (!wide || mapped(dq) !== text) return null;
    }
    out += (i > 0 ? '.' : '') + a;
  }
  return out;
}
return I.freeze({ __proto__: null, toAscii });
