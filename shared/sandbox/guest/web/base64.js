// atob and btoa (a web part, rules in guest-web.ts), with the HTML standard's forgiving-base64
// rules: ASCII whitespace ignored, padding optional, discarded bits may be set, and
// InvalidCharacterError DOMExceptions.
/* global U8, A, I, DOMEx, needs, domString, latin1 */
'use strict';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new U8(128);
const alphabetCode = A(I.bind, I.charCodeAt, [ALPHABET]);
for (let i = 0; i < 128; i++) DECODE[i] = 255;
for (let i = 0; i < 64; i++) DECODE[alphabetCode(i)] = i;
DECODE[61] = 64;
const invalidCharacter = (m) => new DOMEx(m, 'InvalidCharacterError');
function btoa(data) {
  needs(1, arguments.length, 'btoa');
  const s = domString(data);
  const n = s.length;
  const c = A(I.bind, I.charCodeAt, [s]);
  let out = '';
  for (let i = 0; i < n; i += 3) {
    const a = c(i);
    const b = i + 1 < n ? c(i + 1) : 0;
    const d = i + 2 < n ? c(i + 2) : 0;
    if (a > 255 || b > 255 || d > 255)
      throw invalidCharacter('btoa: the string contains a character outside Latin-1 (above U+00FF); encode text to bytes first.');
    const x = (a << 16) | (b << 8) | d;
    out += ALPHABET[x >> 18] + ALPHABET[(x >> 12) & 63] + (i + 1 < n ? ALPHABET[(x >> 6) & 63] : '=') + (i + 2 < n ? ALPHABET[x & 63] : '=');
  }
  return out;
}
function atob(data) {
  needs(1, arguments.length, 'atob');
  const s = domString(data);
  const n = s.length;
  const c = A(I.bind, I.charCodeAt, [s]);
  const q = new U8(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = c(i);
    if (x === 9 || x === 10 || x === 12 || x === 13 || x === 32) continue;
    q[m++] = x < 128 ? DECODE[x] : 255;
  }
  if (m % 4 === 0 && m > 0 && q[m - 1] === 64) {
    m--;
    if (q[m - 1] === 64) m--;
  }
  if (m % 4 === 1) throw invalidCharacter('atob: the string is not valid base64 (its length is wrong).');
  for (let i = 0; i < m; i++)
    if (q[i] > 63) throw invalidCharacter('atob: the string is not valid base64 (it contains a character outside the base64 alphabet).');
  const out = new U8((m * 3) >> 2);
  let j = 0;
  for (let i = 0; i < m; i += 4) {
    const x = (q[i] << 18) | (q[i + 1] << 12) | (i + 2 < m ? q[i + 2] << 6 : 0) | (i + 3 < m ? q[i + 3] : 0);
    out[j++] = x >> 16;
    if (i + 2 < m) out[j++] = (x >> 8) & 255;
    if (i + 3 < m) out[j++] = x & 255;
  }
  return latin1(out, 0, j);
}
return I.freeze({ __proto__: null, atob, btoa });
