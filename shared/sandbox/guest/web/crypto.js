// crypto.getRandomValues and crypto.randomUUID (a web part, rules in guest-web.ts):
// getRandomValues takes integer typed arrays, at most 65536 bytes a call, else the spec's
// TypeMismatchError / QuotaExceededError; randomUUID is version 4. The bytes come from the host's
// CSPRNG (W.hostRandom), never from Math.random, which is seeded per run but predictable.
/* global W, A, I, DOMEx, U8, TypeErr, needs, toStringTag */
'use strict';
const INTEGER_ARRAYS = {
  __proto__: null,
  Int8Array: 1,
  Uint8Array: 1,
  Uint8ClampedArray: 1,
  Int16Array: 1,
  Uint16Array: 1,
  Int32Array: 1,
  Uint32Array: 1,
  BigInt64Array: 1,
  BigUint64Array: 1,
};
const HEX = '0123456789abcdef';
function random(n) {
  const b = W.hostRandom(n);
  let got = -1;
  try {
    got = A(I.ABG[0], b, []);
  } catch (_) {}
  if (got !== n)
    throw new DOMEx('crypto: random values are only available while a run executes, not while modules are prepared ahead of one.', 'NotSupportedError');
  return new U8(b);
}
const illegalInvocation = (what) => new TypeErr('Illegal invocation: call ' + what + ' on the crypto object.');
const cryptoPrototype = {
  getRandomValues(array) {
    if (this !== crypto) throw illegalInvocation('getRandomValues');
    needs(1, arguments.length, 'crypto.getRandomValues');
    if (!I.isView(array)) throw new TypeErr('crypto.getRandomValues: the argument must be an integer typed array.');
    const t = A(W.TAG, array, []);
    if (t === undefined || INTEGER_ARRAYS[t] !== 1)
      throw new DOMEx(
        'crypto.getRandomValues: the argument must be an integer typed array, not ' + (t === undefined ? 'a DataView' : 'a ' + t) + '.',
        'TypeMismatchError',
      );
    const n = A(I.TA[2], array, []);
    if (n > 65536)
      throw new DOMEx("crypto.getRandomValues: the array's byte length (" + n + ') exceeds the 65536 bytes one call may fill.', 'QuotaExceededError');
    if (n > 0) A(I.taSet, new U8(A(I.TA[0], array, []), A(I.TA[1], array, []), n), [random(n)]);
    return array;
  },
  randomUUID() {
    if (this !== crypto) throw illegalInvocation('randomUUID');
    const b = random(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let s = '';
    for (let i = 0; i < 16; i++) {
      s += HEX[b[i] >> 4] + HEX[b[i] & 15];
      if (i === 3 || i === 5 || i === 7 || i === 9) s += '-';
    }
    return s;
  },
};
I.dp(cryptoPrototype, toStringTag, { __proto__: null, value: 'Crypto', configurable: true });
// The methods compare `this` with it: a call on any other object is an illegal invocation.
const crypto = I.create(cryptoPrototype);
return I.freeze({ __proto__: null, crypto });
