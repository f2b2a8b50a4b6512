// Three small lazily compiled web parts (rules in guest-web.ts):
//  - base64: atob and btoa, with the HTML standard's forgiving-base64 rules (ASCII whitespace
//    ignored, padding optional, discarded bits may be set) and InvalidCharacterError DOMExceptions;
//  - crypto: getRandomValues (integer typed arrays, at most 65536 bytes a call, else the spec's
//    TypeMismatchError / QuotaExceededError) and randomUUID (version 4), with bytes from the host's
//    CSPRNG; never Math.random, which is seeded per run but predictable;
//  - clone: structuredClone for what the HTML standard serializes and a sandbox has: primitives
//    but symbols, their wrapper objects, Date, RegExp (lastIndex not kept), ArrayBuffer (resizable
//    kept), typed arrays and DataView (shared buffers stay shared), Map, Set, Error (name, message,
//    stack), arrays (holes kept) and plain objects (own enumerable string keys), with cycles; the
//    transfer option detaches the listed ArrayBuffers. Functions, symbols, WeakMap, WeakSet, WeakRef,
//    FinalizationRegistry, promises, Symbol wrappers, iterators and generators throw a
//    DataCloneError. What it cannot see: a Proxy is cloned through its traps as a plain object (the
//    standard refuses it), and a built-in whose prototype was swapped is recognised by its
//    prototype, checked against its internal slots; the refused kinds are told by prototype alone,
//    so an ordinary object made from one (Object.create(Promise.prototype)) is refused too.

export const WEB_BASE64_PART = String.raw`const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", D = new U8(128), b64 = A(I.bind, I.charCodeAt, [B64]);
for (let i = 0; i < 128; i++) D[i] = 255;
for (let i = 0; i < 64; i++) D[b64(i)] = i;
D[61] = 64;
const invalid = (m) => new DOMEx(m, "InvalidCharacterError");
function btoa(data) {
  needs(1, arguments.length, "btoa");
  const s = str(data), n = s.length, c = A(I.bind, I.charCodeAt, [s]);
  let out = "";
  for (let i = 0; i < n; i += 3) {
    const a = c(i), b = i + 1 < n ? c(i + 1) : 0, d = i + 2 < n ? c(i + 2) : 0;
    if (a > 255 || b > 255 || d > 255) throw invalid("btoa: the string contains a character outside Latin-1 (above U+00FF); encode text to bytes first.");
    const x = (a << 16) | (b << 8) | d;
    out += B64[x >> 18] + B64[(x >> 12) & 63] + (i + 1 < n ? B64[(x >> 6) & 63] : "=") + (i + 2 < n ? B64[x & 63] : "=");
  }
  return out;
}
function atob(data) {
  needs(1, arguments.length, "atob");
  const s = str(data), n = s.length, c = A(I.bind, I.charCodeAt, [s]), q = new U8(n);
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = c(i);
    if (x === 9 || x === 10 || x === 12 || x === 13 || x === 32) continue;
    q[m++] = x < 128 ? D[x] : 255;
  }
  if (m % 4 === 0 && m > 0 && q[m - 1] === 64) { m--; if (q[m - 1] === 64) m--; }
  if (m % 4 === 1) throw invalid("atob: the string is not valid base64 (its length is wrong).");
  for (let i = 0; i < m; i++) if (q[i] > 63) throw invalid("atob: the string is not valid base64 (it contains a character outside the base64 alphabet).");
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
return I.freeze({ __proto__: null, atob, btoa });`;

export const WEB_CRYPTO_PART = String.raw`const INT = { __proto__: null, Int8Array: 1, Uint8Array: 1, Uint8ClampedArray: 1, Int16Array: 1, Uint16Array: 1, Int32Array: 1, Uint32Array: 1, BigInt64Array: 1, BigUint64Array: 1 };
const HEX = "0123456789abcdef";
function random(n) {
  const b = W.hostRandom(n);
  let got = -1;
  try { got = A(I.ABG[0], b, []); } catch (_) {}
  if (got !== n) throw new DOMEx("crypto: random values are only available while a run executes, not while modules are prepared ahead of one.", "NotSupportedError");
  return new U8(b);
}
let crypto;
const illegal = (what) => new TypeErr("Illegal invocation: call " + what + " on the crypto object.");
const P = {
  getRandomValues(array) {
    if (this !== crypto) throw illegal("getRandomValues");
    needs(1, arguments.length, "crypto.getRandomValues");
    if (!I.isView(array)) throw new TypeErr("crypto.getRandomValues: the argument must be an integer typed array.");
    const t = A(W.TAG, array, []);
    if (t === undefined || INT[t] !== 1) throw new DOMEx("crypto.getRandomValues: the argument must be an integer typed array, not " + (t === undefined ? "a DataView" : "a " + t) + ".", "TypeMismatchError");
    const n = A(I.TA[2], array, []);
    if (n > 65536) throw new DOMEx("crypto.getRandomValues: the array's byte length (" + n + ") exceeds the 65536 bytes one call may fill.", "QuotaExceededError");
    if (n > 0) A(I.taSet, new U8(A(I.TA[0], array, []), A(I.TA[1], array, []), n), [random(n)]);
    return array;
  },
  randomUUID() {
    if (this !== crypto) throw illegal("randomUUID");
    const b = random(16);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let s = "";
    for (let i = 0; i < 16; i++) { s += HEX[b[i] >> 4] + HEX[b[i] & 15]; if (i === 3 || i === 5 || i === 7 || i === 9) s += "-"; }
    return s;
  },
};
I.dp(P, ST, { __proto__: null, value: "Crypto", configurable: true });
crypto = I.create(P);
return I.freeze({ __proto__: null, crypto });`;

export const WEB_CLONE_PART = String.raw`const C = W.C, M = W.M, St = W.St, R = W.R, OP = I.getProto({}), ABP = I.AB.prototype;
const cannot = (what) => new DOMEx(what + " could not be cloned.", "DataCloneError");
const ERROR_NAMES = { __proto__: null, Error: 1, EvalError: 1, RangeError: 1, ReferenceError: 1, SyntaxError: 1, TypeError: 1, URIError: 1 };
const FLAGS = [["hasIndices", "d"], ["global", "g"], ["ignoreCase", "i"], ["multiline", "m"], ["dotAll", "s"], ["unicode", "u"], ["unicodeSets", "v"], ["sticky", "y"]];
const ownData = (v, k) => { const d = I.hasOwn(v, k) ? W.gopd(v, k) : undefined; return d !== undefined && I.hasOwn(d, "value") ? d.value : undefined; };
// An error's name as the standard reads it (the first "name" up its prototype chain), data properties only: a getter is not run.
function errorName(v) {
  for (let q = v, d = 0; q !== null && d < 64; d++, q = I.getProto(q)) {
    if (!I.hasOwn(q, "name")) continue;
    const name = ownData(q, "name");
    return typeof name === "string" && ERROR_NAMES[name] === 1 ? name : "Error";
  }
  return "Error";
}
const works = (f, v) => { try { A(f, v, []); return true; } catch (_) { return false; } };
// What a non-plain object is, from its prototype chain, confirmed by its internal slots.
function kind(v) {
  let p = I.getProto(v);
  for (let depth = 0; p !== null && p !== OP && depth < 64; depth++) {
    if (p === C.Map.prototype) return works(M.size, v) ? "Map" : "";
    if (p === C.Set.prototype) return works(St.size, v) ? "Set" : "";
    if (p === C.Date.prototype) return works(W.D.getTime, v) ? "Date" : "";
    if (p === C.RegExp.prototype) return works(R.source, v) ? "RegExp" : "";
    if (p === ABP) return works(I.ABG[0], v) ? "ArrayBuffer" : "";
    if (p === C.DataView.prototype) return works(I.DV[0], v) ? "DataView" : "";
    for (let i = 0; i < 4; i++) if (p === W.V[i][0]) return works(W.V[i][1], v) ? "wrapper" + i : "";
    for (let i = 0; i < 6; i++) if (p === W.NC[i][0]) throw cannot("A " + W.NC[i][1]);
    if (p === W.IP) throw cannot("An iterator or generator");
    p = I.getProto(p);
  }
  return "";
}
function props(v, out, memory) {
  const keys = I.keys(v);
  for (let i = 0; i < keys.length; i++) { const k = keys[i]; if (I.hasOwn(v, k)) dp(out, k, clone(v[k], memory)); }
  return out;
}
const remember = (memory, v, out) => { A(M.set, memory, [v, out]); return out; };
function buffer(v) {
  if (A(W.AB.detached, v, [])) throw cannot("A detached ArrayBuffer");
  const n = A(I.ABG[0], v, []), out = A(W.AB.resizable, v, []) ? new I.AB(n, { maxByteLength: A(W.AB.maxByteLength, v, []) }) : new I.AB(n);
  A(I.taSet, new U8(out), [new U8(v)]);
  return out;
}
function clone(v, memory) {
  if (typeof v === "symbol") throw cannot("A symbol");
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
  const seen = A(M.get, memory, [v]);
  if (seen !== undefined) return seen;
  if (typeof v === "function") throw cannot("A function");
  if (I.isArray(v)) return props(v, remember(memory, v, new W.Arr(v.length)), memory);
  if (W.isErr(v)) {
    const name = errorName(v);
    const message = ownData(v, "message"), stack = ownData(v, "stack");
    const out = remember(memory, v, message === undefined ? new C[name]() : new C[name](str(message)));
    if (typeof stack === "string") I.dp(out, "stack", { __proto__: null, value: stack, writable: true, enumerable: false, configurable: true });
    else delete out.stack;
    return out;
  }
  const t = A(W.TAG, v, []);
  if (t !== undefined) {
    const b = clone(A(I.TA[0], v, []), memory);
    return remember(memory, v, new C[t](b, A(I.TA[1], v, []), A(W.TL, v, [])));
  }
  const p = I.getProto(v), k = p === OP || p === null ? "" : kind(v);
  if (k === "") return props(v, remember(memory, v, {}), memory);
  if (k === "Map" || k === "Set") {
    const keys = [], values = [], isMap = k === "Map", out = remember(memory, v, isMap ? new C.Map() : new C.Set());
    A(isMap ? M.forEach : St.forEach, v, [(value, key) => { push(keys, key); push(values, value); }]);
    for (let i = 0; i < keys.length; i++) {
      if (isMap) { const ck = clone(keys[i], memory); A(M.set, out, [ck, clone(values[i], memory)]); } else A(St.add, out, [clone(keys[i], memory)]);
    }
    return out;
  }
  if (k === "Date") return remember(memory, v, new C.Date(A(W.D.getTime, v, [])));
  if (k === "RegExp") {
    let flags = "";
    for (let i = 0; i < 8; i++) if (R[FLAGS[i][0]] !== undefined && A(R[FLAGS[i][0]], v, [])) flags += FLAGS[i][1];
    return remember(memory, v, new C.RegExp(A(R.source, v, []), flags));
  }
  if (k === "ArrayBuffer") return remember(memory, v, buffer(v));
  if (k === "DataView") { const b = clone(A(I.DV[0], v, []), memory); return remember(memory, v, new C.DataView(b, A(I.DV[1], v, []), A(I.DV[2], v, []))); }
  return remember(memory, v, W.O(A(W.V[k === "wrapper0" ? 0 : k === "wrapper1" ? 1 : k === "wrapper2" ? 2 : 3][1], v, [])));
}
function structuredClone(value, options = undefined) {
  needs(1, arguments.length, "structuredClone");
  const memory = new C.Map(), moved = [];
  if (options !== undefined && options !== null) {
    if (typeof options !== "object" && typeof options !== "function") throw new TypeErr("structuredClone: the options must be an object.");
    const list = options.transfer;
    if (list !== undefined) {
      if (!I.isArray(list)) throw new TypeErr("structuredClone: transfer must be an array of ArrayBuffers.");
      for (let i = 0; i < list.length; i++) {
        const b = I.hasOwn(list, i) ? list[i] : undefined;
        if (b === null || typeof b !== "object" || !works(I.ABG[0], b)) throw cannot("Only ArrayBuffers can be transferred; this value");
        if (A(M.has, memory, [b])) throw cannot("An ArrayBuffer listed twice in transfer");
        A(M.set, memory, [b, buffer(b)]);
        push(moved, b);
      }
    }
  }
  const out = clone(value, memory);
  for (let i = 0; i < moved.length; i++) A(W.AB.transfer, moved[i], []);
  return out;
}
return I.freeze({ __proto__: null, structuredClone });`;
