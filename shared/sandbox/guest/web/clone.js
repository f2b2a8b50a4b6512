// structuredClone (a web part, rules in guest-web.ts) for what the HTML standard serializes and a
// sandbox has: primitives but symbols, their wrapper objects, Date, RegExp (lastIndex not kept),
// ArrayBuffer (resizable kept), typed arrays and DataView (shared buffers stay shared), Map, Set,
// Error (name, message, stack), arrays (holes kept) and plain objects (own enumerable string keys),
// with cycles; the transfer option detaches the listed ArrayBuffers. Functions, symbols, WeakMap,
// WeakSet, WeakRef, FinalizationRegistry, promises, Symbol wrappers, iterators and generators throw
// a DataCloneError. What it cannot see: a Proxy is cloned through its traps as a plain object (the
// standard refuses it), and a built-in whose prototype was swapped is recognised by its prototype,
// checked against its internal slots; the refused kinds are told by prototype alone, so an ordinary
// object made from one (Object.create(Promise.prototype)) is refused too.
/* global W, I, DOMEx, A, define, U8, domString, push, needs, TypeErr */
'use strict';
const CONSTRUCTORS = W.C;
const mapMethods = W.M;
const setMethods = W.St;
const regExpMethods = W.R;
const OBJECT_PROTO = I.getProto({});
const BUFFER_PROTO = I.AB.prototype;
const uncloneable = (what) => new DOMEx(what + ' could not be cloned.', 'DataCloneError');
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
const hasSlots = (f, v) => {
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
  for (let depth = 0; p !== null && p !== OBJECT_PROTO && depth < 64; depth++) {
    if (p === CONSTRUCTORS.Map.prototype) return hasSlots(mapMethods.size, v) ? 'Map' : '';
    if (p === CONSTRUCTORS.Set.prototype) return hasSlots(setMethods.size, v) ? 'Set' : '';
    if (p === CONSTRUCTORS.Date.prototype) return hasSlots(W.D.getTime, v) ? 'Date' : '';
    if (p === CONSTRUCTORS.RegExp.prototype) return hasSlots(regExpMethods.source, v) ? 'RegExp' : '';
    if (p === BUFFER_PROTO) return hasSlots(I.ABG[0], v) ? 'ArrayBuffer' : '';
    if (p === CONSTRUCTORS.DataView.prototype) return hasSlots(I.DV[0], v) ? 'DataView' : '';
    for (let i = 0; i < 4; i++) if (p === W.V[i][0]) return hasSlots(W.V[i][1], v) ? 'wrapper' + i : '';
    for (let i = 0; i < 6; i++) if (p === W.NC[i][0]) throw uncloneable('A ' + W.NC[i][1]);
    if (p === W.IP) throw uncloneable('An iterator or generator');
    p = I.getProto(p);
  }
  return '';
}
function copyProps(v, out, memory) {
  const keys = I.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    if (I.hasOwn(v, k)) define(out, k, clone(v[k], memory));
  }
  return out;
}
const remember = (memory, v, out) => {
  A(mapMethods.set, memory, [v, out]);
  return out;
};
function copyBuffer(v) {
  if (A(W.AB.detached, v, [])) throw uncloneable('A detached ArrayBuffer');
  const n = A(I.ABG[0], v, []);
  const out = A(W.AB.resizable, v, []) ? new I.AB(n, { maxByteLength: A(W.AB.maxByteLength, v, []) }) : new I.AB(n);
  A(I.taSet, new U8(out), [new U8(v)]);
  return out;
}
function clone(v, memory) {
  if (typeof v === 'symbol') throw uncloneable('A symbol');
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return v;
  const seen = A(mapMethods.get, memory, [v]);
  if (seen !== undefined) return seen;
  if (typeof v === 'function') throw uncloneable('A function');
  if (I.isArray(v)) return copyProps(v, remember(memory, v, new W.Arr(v.length)), memory);
  if (W.isErr(v)) {
    const name = errorName(v);
    const message = ownData(v, 'message');
    const stack = ownData(v, 'stack');
    const out = remember(memory, v, message === undefined ? new CONSTRUCTORS[name]() : new CONSTRUCTORS[name](domString(message)));
    if (typeof stack === 'string') I.dp(out, 'stack', { __proto__: null, value: stack, writable: true, enumerable: false, configurable: true });
    else delete out.stack;
    return out;
  }
  const t = A(W.TAG, v, []);
  if (t !== undefined) {
    const b = clone(A(I.TA[0], v, []), memory);
    return remember(memory, v, new CONSTRUCTORS[t](b, A(I.TA[1], v, []), A(W.TL, v, [])));
  }
  const p = I.getProto(v);
  const k = p === OBJECT_PROTO || p === null ? '' : kind(v);
  if (k === '') return copyProps(v, remember(memory, v, {}), memory);
  if (k === 'Map' || k === 'Set') {
    const keys = [];
    const values = [];
    const isMap = k === 'Map';
    const out = remember(memory, v, isMap ? new CONSTRUCTORS.Map() : new CONSTRUCTORS.Set());
    A(isMap ? mapMethods.forEach : setMethods.forEach, v, [
      (value, key) => {
        push(keys, key);
        push(values, value);
      },
    ]);
    for (let i = 0; i < keys.length; i++) {
      if (isMap) {
        const ck = clone(keys[i], memory);
        A(mapMethods.set, out, [ck, clone(values[i], memory)]);
      } else A(setMethods.add, out, [clone(keys[i], memory)]);
    }
    return out;
  }
  if (k === 'Date') return remember(memory, v, new CONSTRUCTORS.Date(A(W.D.getTime, v, [])));
  if (k === 'RegExp') {
    let flags = '';
    for (let i = 0; i < 8; i++) if (regExpMethods[FLAGS[i][0]] !== undefined && A(regExpMethods[FLAGS[i][0]], v, [])) flags += FLAGS[i][1];
    return remember(memory, v, new CONSTRUCTORS.RegExp(A(regExpMethods.source, v, []), flags));
  }
  if (k === 'ArrayBuffer') return remember(memory, v, copyBuffer(v));
  if (k === 'DataView') {
    const b = clone(A(I.DV[0], v, []), memory);
    return remember(memory, v, new CONSTRUCTORS.DataView(b, A(I.DV[1], v, []), A(I.DV[2], v, [])));
  }
  return remember(memory, v, W.O(A(W.V[k === 'wrapper0' ? 0 : k === 'wrapper1' ? 1 : k === 'wrapper2' ? 2 : 3][1], v, [])));
}
function structuredClone(value, options = undefined) {
  needs(1, arguments.length, 'structuredClone');
  const memory = new CONSTRUCTORS.Map();
  const moved = [];
  if (options !== undefined && options !== null) {
    if (typeof options !== 'object' && typeof options !== 'function') throw new TypeErr('structuredClone: the options must be an object.');
    const list = options.transfer;
    if (list !== undefined) {
      if (!I.isArray(list)) throw new TypeErr('structuredClone: transfer must be an array of ArrayBuffers.');
      for (let i = 0; i < list.length; i++) {
        const b = I.hasOwn(list, i) ? list[i] : undefined;
        if (b === null || typeof b !== 'object' || !hasSlots(I.ABG[0], b)) throw uncloneable('Only ArrayBuffers can be transferred; this value');
        if (A(mapMethods.has, memory, [b])) throw uncloneable('An ArrayBuffer listed twice in transfer');
        A(mapMethods.set, memory, [b, copyBuffer(b)]);
        push(moved, b);
      }
    }
  }
  const out = clone(value, memory);
  for (let i = 0; i < moved.length; i++) A(W.AB.transfer, moved[i], []);
  return out;
}
return I.freeze({ __proto__: null, structuredClone });
