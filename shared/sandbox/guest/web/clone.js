'use strict';
const C = W.C;
const M = W.M;
const St = W.St;
const R = W.R;
const OP = I.getProto({});
const ABP = I.AB.prototype;
const cannot = (what) => new DOMEx(what + ' could not be cloned.', 'DataCloneError');
const ERROR_NAMES = { __proto__: null, Error: 1, EvalError: 1, RangeError: 1, ReferenceError: 1, SyntaxError: 1, TypeError: 1, URIError: 1 };
const FLAGS = [
  ['hasIndices', 'd'],
  ['global', 'g'],
  ['ignoreCase', 'i'],
  ['multiline', 'm'],
  ['dotAll', 's'],
  ['unicode', 'u'],
  ['unicodeSets', 'v'],
  ['sticky', 'y'],
];
const ownData = (v, k) => {
  const d = I.hasOwn(v, k) ? W.gopd(v, k) : undefined;
  return d !== undefined && I.hasOwn(d, 'value') ? d.value : undefined;
};
// An error's name as the standard reads it (the first "name" up its prototype chain), data properties only: a getter is not run.
function errorName(v) {
  for (let q = v, d = 0; q !== null && d < 64; d++, q = I.getProto(q)) {
    if (!I.hasOwn(q, 'name')) continue;
    const name = ownData(q, 'name');
    return typeof name === 'string' && ERROR_NAMES[name] === 1 ? name : 'Error';
  }
  return 'Error';
}
const works = (f, v) => {
  try {
    A(f, v, []);
    return true;
  } catch (_) {
    return false;
  }
};
// What a non-plain object is, from its prototype chain, confirmed by its internal slots.
function kind(v) {
  let p = I.getProto(v);
  for (let depth = 0; p !== null && p !== OP && depth < 64; depth++) {
    if (p === C.Map.prototype) return works(M.size, v) ? 'Map' : '';
    if (p === C.Set.prototype) return works(St.size, v) ? 'Set' : '';
    if (p === C.Date.prototype) return works(W.D.getTime, v) ? 'Date' : '';
    if (p === C.RegExp.prototype) return works(R.source, v) ? 'RegExp' : '';
    if (p === ABP) return works(I.ABG[0], v) ? 'ArrayBuffer' : '';
    if (p === C.DataView.prototype) return works(I.DV[0], v) ? 'DataView' : '';
    for (let i = 0; i < 4; i++) if (p === W.V[i][0]) return works(W.V[i][1], v) ? 'wrapper' + i : '';
    for (let i = 0; i < 6; i++) if (p === W.NC[i][0]) throw cannot('A ' + W.NC[i][1]);
    if (p === W.IP) throw cannot('An iterator or generator');
    p = I.getProto(p);
  }
  return '';
}
function props(v, out, memory) {
  const keys = I.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (I.hasOwn(v, k)) dp(out, k, clone(v[k], memory));
  }
  return out;
}
const remember = (memory, v, out) => {
  A(M.set, memory, [v, out]);
  return out;
};
function buffer(v) {
  if (A(W.AB.detached, v, [])) throw cannot('A detached ArrayBuffer');
  const n = A(I.ABG[0], v, []);
  const out = A(W.AB.resizable, v, []) ? new I.AB(n, { maxByteLength: A(W.AB.maxByteLength, v, []) }) : new I.AB(n);
  A(I.taSet, new U8(out), [new U8(v)]);
  return out;
}
function clone(v, memory) {
  if (typeof v === 'symbol') throw cannot('A symbol');
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return v;
  const seen = A(M.get, memory, [v]);
  if (seen !== undefined) return seen;
  if (typeof v === 'function') throw cannot('A function');
  if (I.isArray(v)) return props(v, remember(memory, v, new W.Arr(v.length)), memory);
  if (W.isErr(v)) {
    const name = errorName(v);
    const message = ownData(v, 'message');
    const stack = ownData(v, 'stack');
    const out = remember(memory, v, message === undefined ? new C[name]() : new C[name](str(message)));
    if (typeof stack === 'string') I.dp(out, 'stack', { __proto__: null, value: stack, writable: true, enumerable: false, configurable: true });
    else delete out.stack;
    return out;
  }
  const t = A(W.TAG, v, []);
  if (t !== undefined) {
    const b = clone(A(I.TA[0], v, []), memory);
    return remember(memory, v, new C[t](b, A(I.TA[1], v, []), A(W.TL, v, [])));
  }
  const p = I.getProto(v);
  const k = p === OP || p === null ? '' : kind(v);
  if (k === '') return props(v, remember(memory, v, {}), memory);
  if (k === 'Map' || k === 'Set') {
    const keys = [];
    const values = [];
    const isMap = k === 'Map';
    const out = remember(memory, v, isMap ? new C.Map() : new C.Set());
    A(isMap ? M.forEach : St.forEach, v, [
      (value, key) => {
        push(keys, key);
        push(values, value);
      },
    ]);
    for (let i = 0; i < keys.length; i++) {
      if (isMap) {
        const ck = clone(keys[i], memory);
        A(M.set, out, [ck, clone(values[i], memory)]);
      } else A(St.add, out, [clone(keys[i], memory)]);
    }
    return out;
  }
  if (k === 'Date') return remember(memory, v, new C.Date(A(W.D.getTime, v, [])));
  if (k === 'RegExp') {
    let flags = '';
    for (let i = 0; i < 8; i++) if (R[FLAGS[i][0]] !== undefined && A(R[FLAGS[i][0]], v, [])) flags += FLAGS[i][1];
    return remember(memory, v, new C.RegExp(A(R.source, v, []), flags));
  }
  if (k === 'ArrayBuffer') return remember(memory, v, buffer(v));
  if (k === 'DataView') {
    const b = clone(A(I.DV[0], v, []), memory);
    return remember(memory, v, new C.DataView(b, A(I.DV[1], v, []), A(I.DV[2], v, [])));
  }
  return remember(memory, v, W.O(A(W.V[k === 'wrapper0' ? 0 : k === 'wrapper1' ? 1 : k === 'wrapper2' ? 2 : 3][1], v, [])));
}
function structuredClone(value, options = undefined) {
  needs(1, arguments.length, 'structuredClone');
  const memory = new C.Map();
  const moved = [];
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' && typeof options !== 'function') throw new TypeErr('structuredClone: the options must be an object.');
    const list = options.transfer;
    if (list !== undefined) {
      if (!I.isArray(list)) throw new TypeErr('structuredClone: transfer must be an array of ArrayBuffers.');
      for (let i = 0; i < list.length; i++) {
        const b = I.hasOwn(list, i) ? list[i] : undefined;
        if (b === null || typeof b !== 'object' || !works(I.ABG[0], b)) throw cannot('Only ArrayBuffers can be transferred; this value');
        if (A(M.has, memory, [b])) throw cannot('An ArrayBuffer listed twice in transfer');
        A(M.set, memory, [b, buffer(b)]);
        push(moved, b);
      }
    }
  }
  const out = clone(value, memory);
  for (let i = 0; i < moved.length; i++) A(W.AB.transfer, moved[i], []);
  return out;
}
return I.freeze({ __proto__: null, structuredClone });
