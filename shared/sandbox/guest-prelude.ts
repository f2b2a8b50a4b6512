// The first code that runs in every fresh guest context, before any module is loaded (so before
// any pack's top-level code): it removes code generation, timers and shared memory, captures the
// host bridge functions and deletes their globals, takes the stack-frame hook away from the guest,
// hides function source, and installs the capability globals as non-writable, non-configurable
// wrappers. Being first is the point: a pack's top level sees the hardened world, and cannot
// replace `fetch` or `getSecret` to spy on the node's own calls.
//
// Nor can it spy by patching what the bridge would touch (a getter on Object.prototype for a tag
// or for "then", toJSON, an Array index setter, String or TypedArray methods, Promise.prototype's
// then or constructor): the core captures every intrinsic the bridge uses before any pack runs,
// and from a capability call until its value reaches the node's await or then, nothing looks
// anything up on a shared prototype (see prelude-spying.test.ts, one test per way in). The price:
// capability arguments are plain data (toJSON is not honoured), the library's promises have a
// frozen prototype of their own, Promise[Symbol.species] cannot be redefined. Not covered: what the
// node itself does with a value once it has it; console output and the node's result, which are
// serialized by JSON.stringify (toJSON is their contract); WASM results, which facades return
// from async functions (a plain promise).
//
// It comes in two parts because compiling guest source is the dominant per-invocation cost
// (measured: ~0.5 ms per KB on this engine). The CORE is small and always runs. The bridge
// LIBRARY (marshaling, base64, UTF-8, the Response object) is compiled only when a run first
// uses a capability or passes bytes; it receives the intrinsics the core captured up front.
//
// Marshaling follows the spec's settled rules (Fact 7): guest→host typed arrays travel as real
// ArrayBuffers beside a JSON argument list; host→guest bytes arrive as `{ "__sandboxBytes": b64 }`
// and are revived here; the host always resolves with a tagged result, and the library turns a
// failure into a normal guest Error carrying `code`.

import { LIMITS } from '../protocol/limits.ts';
import { WASM_BRIDGE_GLOBAL } from '../protocol/wasm-bridge.ts';
import { webCoreSource } from './guest-web.ts';

/** Globals the host defines before the core runs; the core deletes them. */
export const HOST_CALL_GLOBAL = '__sandboxHostCall';
export const HOST_LOG_GLOBAL = '__sandboxHostLog';
export const HOST_LIBRARY_GLOBAL = '__sandboxHostLibrary';
/**
 * The run's clock: `(0)` → milliseconds since the run started (its own clock, which leaves out any
 * time the host held it), `(1)` → when it started (epoch ms). The guest's `performance` reads it,
 * so every run has a time origin of its own: the engine's own one is its context's creation,
 * which a restored image keeps — a run could read the sandbox's age and link itself to earlier runs.
 */
export const HOST_CLOCK_GLOBAL = '__sandboxHostClock';
/**
 * The WASM fast path: `(moduleId, exportName, ...numbers)` → a call id. The host answers later
 * through the core's `deliver(id, answer)`: a number, `undefined` (a void export) or a tagged
 * result as JSON text (a failure, or a scripted non-scalar answer). Scalar calls are the hot
 * path of the WASM bridge, and skipping JSON, the bridge library and a host-made promise is most
 * of their cost (measured); anything that is not a plain list of numbers takes the general bridge
 * instead, so the host sees and rejects it exactly as before.
 */
export const HOST_WASM_GLOBAL = '__sandboxHostWasm';

/** The names the core and library are evaluated under; their frames are skipped when naming a caller. */
export const PRELUDE_SCRIPT_NAME = 'sandbox:prelude';
export const LIBRARY_SCRIPT_NAME = 'sandbox:bridge';

const CORE = String.raw`(function (G) {
"use strict";
const O = Object, defineProperty = O.defineProperty, freeze = O.freeze, getProto = O.getPrototypeOf, gopd = O.getOwnPropertyDescriptor, E = Error;
const host = G[__HOST_CALL__], hostLog = G[__HOST_LOG__], hostLibrary = G[__HOST_LIBRARY__], hostWasm = G[__HOST_WASM__], hostClock = G[__HOST_CLOCK__];
delete G[__HOST_CALL__]; delete G[__HOST_LOG__]; delete G[__HOST_LIBRARY__]; delete G[__HOST_WASM__]; delete G[__HOST_CLOCK__];
const prepare = gopd(E, "prepareStackTrace"), limit = gopd(E, "stackTraceLimit"), TA = getProto(Uint8Array.prototype), SP = String.prototype, PP = Promise.prototype;
// What touches host answers or the node's arguments after packs have run (the library is compiled
// then) uses only what is captured here: a pack may patch any prototype or global, and a patched
// method, getter or setter on the way would be handed the data. Accessors are called through
// their captured getters (TA: buffer, byteOffset, byteLength; DV likewise; ABG: byteLength). Kept
// terse: compiling this text is most of its cost (measured).
const gets = (o, names) => names.split(" ").map((n) => gopd(o, n).get);
const I = freeze({ host, isArray: Array.isArray, Promise, JSONparse: JSON.parse, JSONstringify: JSON.stringify, isView: ArrayBuffer.isView, U8: Uint8Array, AB: ArrayBuffer,
  apply: Reflect.apply, keys: O.keys, hasOwn: O.hasOwn, freeze, fromCharCode: String.fromCharCode, Err: E, TypeErr: TypeError, Str: String,
  unescape, encodeURIComponent, getProto, setPrepare: prepare.set, getLimit: limit.get, setLimit: limit.set,
  dp: defineProperty, setProto: O.setPrototypeOf, create: O.create, bind: O.bind, charCodeAt: SP.charCodeAt, lower: SP.toLowerCase, taSet: TA.set,
  P: [PP.then, PP.catch, PP.finally], TA: gets(TA, "buffer byteOffset byteLength"), DV: gets(DataView.prototype, "buffer byteOffset byteLength"), ABG: gets(ArrayBuffer.prototype, "byteLength") });
// "then" asks the promise's species for the promise it returns; locked, so a pack's species
// constructor is never handed the value a chain passes on (the library's promises, see SAFE there).
defineProperty(Promise, Symbol.species, { configurable: false });
delete G.eval; delete G.SharedArrayBuffer; delete G.Atomics;
for (const n of ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"]) delete G[n];
const T = TypeError, lock = { writable: false, enumerable: false, configurable: false };
// The engine hands a prepareStackTrace hook live CallSites whose getFunction() returns the real
// function of every frame, host functions included; so the hook is ours alone (the library sets
// it for an instant to name a capability's caller), and the guest's stackTraceLimit is kept a
// number (an object's valueOf would run guest code inside every stack capture).
defineProperty(E, "prepareStackTrace", { get: function () { return undefined; }, set: function () { throw new T("Error.prepareStackTrace cannot be set in the sandbox: stack frames are not handed to sandbox code."); }, enumerable: false, configurable: false });
defineProperty(E, "stackTraceLimit", { get: function () { return I.apply(I.getLimit, E, []); }, set: function (v) { I.apply(I.setLimit, E, [typeof v === "number" ? v : 0]); }, enumerable: false, configurable: false });
// Function source is never readable (a private pack's code would leak through a run): functions
// compiled from source print a stand-in that does not claim "[native code]", so native-function
// checks (lodash, core-js) still tell them apart; built-ins print as before. An accessor, so that
// assigning a function's own toString still works in strict code.
const FP = getProto(function () {}), AF = getProto(async function () {}), GF = getProto(function* () {}), AGF = getProto(async function* () {});
const nativeToString = FP.toString, fileName = gopd(FP, "fileName").get;
const hidden = { toString() {
  if (this === bind) return bindText;
  if (typeof this !== "function" || I.apply(fileName, this, []) === undefined) return I.apply(nativeToString, this, []);
  const own = gopd(this, "name"), name = own !== undefined && typeof own.value === "string" ? own.value : "", p = gopd(this, "prototype"), kind = getProto(this);
  if (p !== undefined && p.writable === false) return "class " + name + " { [sandbox: source hidden] }";
  return (kind === AF ? "async function " : kind === GF ? "function* " : kind === AGF ? "async function* " : "function ") + name + "() { [sandbox: source hidden] }";
} }.toString;
defineProperty(FP, "toString", { get: function () { return hidden; }, set: function (v) {
  if (this === FP) throw new T("Function.prototype.toString cannot be replaced in the sandbox.");
  defineProperty(this, "toString", { value: v, writable: true, enumerable: true, configurable: true });
}, enumerable: false, configurable: false });
// One body is answered rather than refused: Function("return this") (lodash, core-js, webpack's
// runtime ask for the global object so), which needs no code generated. Its function behaves as the
// sloppy one would: called plainly it returns the global object, with a this it returns that (boxed).
// No line break after return: there, the body would return undefined.
const reExec = RegExp.prototype.exec, GLOBAL_IDIOM = /^\s*return[ \t]+this\s*;?\s*$/;
for (const [label, proto] of [["Function", getProto(function () {})], ["AsyncFunction", getProto(async function () {})],
  ["GeneratorFunction", getProto(function* () {})], ["AsyncGeneratorFunction", getProto(async function* () {})]]) {
  const refuse = () => { throw new T(label + " constructor is not available in the sandbox: code cannot be generated at run time."); };
  const blocked = label !== "Function" ? function () { refuse(); } : function (body) {
    if (arguments.length === 1 && typeof body === "string" && I.apply(reExec, GLOBAL_IDIOM, [body]) !== null) return { anonymous: function () { return this === undefined || this === null ? G : O(this); } }.anonymous;
    refuse();
  };
  defineProperty(blocked, "prototype", { value: proto, ...lock });
  defineProperty(proto, "constructor", { value: blocked, ...lock });
  if (label === "Function") defineProperty(G, "Function", { value: blocked, ...lock });
}
let lib;
const L = () => lib || (lib = hostLibrary(I));
const isBytes = (v) => I.isView(v) || v instanceof I.AB;
const toJson = (_k, v) => (isBytes(v) ? L().tag(v) : v);
const NUM = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0 };
// Tags are own properties of objects JSON.parse made; a read up the prototype chain would hand a
// pack's getter every host answer.
const fromJson = (_k, v) => (v === null || typeof v !== "object" ? v : I.hasOwn(v, "__sandboxBytes") ? (typeof v.__sandboxBytes === "string" ? L().revive(v) : v)
  : I.hasOwn(v, "__sandboxNumber") && typeof v.__sandboxNumber === "string" && I.keys(v).length === 1 && I.hasOwn(NUM, v.__sandboxNumber) ? NUM[v.__sandboxNumber] : v);
const constant = (name, value) => defineProperty(G, name, { value: freeze(value), ...lock });
const show = (v) => {
  if (typeof v === "string") return v;
  if (v instanceof I.Err) return I.Str(v.name) + ": " + I.Str(v.message);
  try { const j = I.JSONstringify(v, toJson); return j === undefined ? I.Str(v) : j; } catch (_) { return I.Str(v); }
};
const logger = (level) => (...args) => { let t = ""; for (let i = 0; i < args.length; i++) t += (i ? " " : "") + show(args[i]); hostLog(level, t); };
constant("console", { log: logger("log"), info: logger("info"), warn: logger("warn"), error: logger("error"), debug: logger("debug") });
// The run's own time origin (see HOST_CLOCK_GLOBAL): the engine's performance is the context's.
// Replaceable, as the engine's own is (an input may be named performance).
defineProperty(G, "performance", { value: freeze({ now() { return hostClock(0); }, get timeOrigin() { return hostClock(1); } }), writable: true, enumerable: true, configurable: true });
// The library hands back its own guarded promise and never throws: an async wrapper here would
// resolve a promise with that promise, and that looks up "then".
// A denial names the code that called the capability from the engine's frames (the library's
// caller). Frames the engine never shows — a bound function, a getter or proxy the engine calls on
// the node's behalf — would let a pack that planted getSecret.bind(…) as Array.prototype.at make
// the node's own .at() read as the node's call. So a capability called with a \`this\` it does not
// take (a getter's, a method's) or through a bound function counts as called by code the sandbox
// cannot tell, and bind is ours to see that (for any other function it is the engine's own).
let indirect = false;
const caps = [];
const isCap = (f) => { for (let i = 0; i < caps.length; i++) if (caps[i] === f) return true; return false; };
const entry = (name, direct, f) => {
  const fn = { [name](a, b) { const was = indirect; indirect = was || !direct(this); try { return f(a, b); } finally { indirect = was; } } }[name];
  caps.push(fn);
  return fn;
};
const nativeBind = FP.bind, bindText = I.apply(nativeToString, nativeBind, []);
const bind = { bind() {
  const inner = I.apply(nativeBind, this, arguments);
  if (!isCap(this)) return inner;
  const bound = { bound() { const was = indirect; indirect = true; try { return I.apply(inner, this, arguments); } finally { indirect = was; } } }.bound;
  defineProperty(bound, "name", { value: gopd(inner, "name").value });
  return bound;
} }.bind;
defineProperty(bind, "length", { value: 1 });
defineProperty(FP, "bind", { value: bind, writable: true, enumerable: false, configurable: true });
const plain = (self) => self === undefined;
const via = (name) => entry(name, plain, (a, b) => L()[name](a, b));
let W;
const ws = (op) => entry(op, (self) => self === W || self === undefined, (p, d) => L().workspace(op, p, d));
constant("fetch", via("fetch"));
constant("getSecret", via("getSecret"));
W = { readText: ws("readText"), readBytes: ws("readBytes"), writeText: ws("writeText"), writeBytes: ws("writeBytes"), list: ws("list") };
constant("workspace", W);
__WEB_PART__
__WASM_PART__
return freeze({ serialize: (v) => I.JSONstringify(v === undefined ? null : v, toJson), parse: (t) => I.JSONparse(t, fromJson), deliver, caller: () => (indirect ? "" : L().caller()), warm: (names) => { for (const p of names.split(" ")) part(p); } });
})(globalThis)`;

/** The WASM bridge, in the core of runs that have WASM modules only (compiling it costs every run). */
const WASM_PART = String.raw`// The WASM bridge (the facades' only way out): a promise of the export's value, or a rejection
// with an Error carrying the host's code. Plain number lists take the fast path below.
const waiting = O.create(null);
const deliver = (id, r) => {
  const settle = waiting[id];
  if (settle === undefined) return;
  delete waiting[id];
  if (typeof r !== "string") { settle[0](r); return; }
  try { L().settle(I.JSONparse(r, fromJson), settle[0], settle[1]); } catch (e) { settle[1](e); }
};
const slowWasm = (m, e, a) => L().call("wasm", "call", [m, e, a]);
const wasmCall = (m, e, a) => {
  if (typeof m === "string" && typeof e === "string" && I.isArray(a) && a.length <= __WASM_MAX_PARAMS__) {
    // A null-prototype list: filling an array would pass each number to an index setter a pack put on Array.prototype.
    const n = a.length, list = { __proto__: null, 0: m, 1: e, length: n + 2 };
    let plain = true;
    for (let i = 0; i < n; i++) { const x = a[i]; if (typeof x !== "number") { plain = false; break; } list[i + 2] = x; }
    if (plain) return new I.Promise((resolve, reject) => { waiting[I.apply(hostWasm, undefined, list)] = [resolve, reject]; });
  }
  return slowWasm(m, e, a);
};
// One-shot: the kernel evaluates the bridge module right after this core, before any pack, and
// its one read removes the binding; no module ever sees it.
defineProperty(G, __WASM_GLOBAL__, { get: function () { delete G[__WASM_GLOBAL__]; return wasmCall; }, enumerable: false, configurable: true });
`;

const LIBRARY = String.raw`(function (I) {
"use strict";
// Compiled after packs have run: only the captured intrinsics in I are trusted (see the core),
// called through I.apply; no for-of, spread or destructuring (they take Array.prototype's
// iterator); no assignment that could reach a setter on a prototype (descriptors and lists are
// null-prototype objects, new properties are defined); tags and fields read only when own.
const own = (o, k) => (I.hasOwn(o, k) ? o[k] : undefined);
const define = (o, k, v) => I.dp(o, k, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
const fixed = (value) => ({ __proto__: null, value });
// The prototype of every promise the library hands out or waits on. "await" reads a promise's
// "constructor", "then" reads it too: on Promise.prototype a pack's getter would be handed the
// promise and could read its value. Here both are own, frozen and ours, and "then" keeps the
// promises it derives (getSecret(n).then(f)) on SAFE as well.
const guard = (p) => { I.setProto(p, SAFE); return p; };
const SAFE = I.freeze(I.create(I.Promise.prototype, { __proto__: null, constructor: fixed(I.Promise), catch: fixed(I.P[1]), finally: fixed(I.P[2]),
  then: fixed(function then(f, r) { return guard(I.apply(I.P[0], this, [f, r])); }) }));
const chars = (s) => I.apply(I.bind, I.charCodeAt, [s]);
const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const D = new I.U8(128), a = chars(A);
for (let i = 0; i < 64; i++) D[a(i)] = i;
function b64decode(s) {
  const c = chars(s);
  let end = s.length;
  while (end > 0 && c(end - 1) === 61) end--;
  const n = (end * 3) >> 2, out = new I.U8(n);
  let j = 0;
  for (let i = 0; i < end; i += 4) {
    const x = (D[c(i)] << 18) | (D[c(i + 1)] << 12) | (D[c(i + 2)] << 6) | D[c(i + 3)];
    if (j < n) out[j++] = (x >> 16) & 255;
    if (j < n) out[j++] = (x >> 8) & 255;
    if (j < n) out[j++] = x & 255;
  }
  return out;
}
function b64encode(b) {
  const n = I.apply(I.TA[2], b, []);
  let out = "";
  for (let i = 0; i < n; i += 3) {
    const x = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += A[(x >> 18) & 63] + A[(x >> 12) & 63] + (i + 1 < n ? A[(x >> 6) & 63] : "=") + (i + 2 < n ? A[x & 63] : "=");
  }
  return out;
}
function utf8encode(text) {
  const bin = I.unescape(I.encodeURIComponent(I.Str(text))), c = chars(bin), out = new I.U8(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = c(i);
  return out;
}
function utf8decode(b) {
  const n = I.apply(I.TA[2], b, []);
  let out = "", i = 0;
  while (i < n) {
    const x = b[i++];
    let cp = 0xfffd, need = 0;
    if (x < 0x80) cp = x; else if (x >= 0xc2 && x < 0xe0) { cp = x & 0x1f; need = 1; } else if (x >= 0xe0 && x < 0xf0) { cp = x & 0x0f; need = 2; } else if (x >= 0xf0 && x < 0xf5) { cp = x & 0x07; need = 3; }
    for (let k = 0; k < need; k++) {
      const c = b[i];
      if (c === undefined || (c & 0xc0) !== 0x80) { cp = 0xfffd; break; }
      cp = (cp << 6) | (c & 0x3f);
      i++;
    }
    if (cp > 0xffff) { cp -= 0x10000; out += I.fromCharCode(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff)); } else out += I.fromCharCode(cp);
  }
  return out;
}
// A Uint8Array over the bytes of a typed array, DataView or ArrayBuffer; undefined for anything else.
function bytesOf(v) {
  if (I.isView(v)) {
    let parts;
    let g = I.TA;
    try { I.apply(g[0], v, []); } catch (_) { g = I.DV; }
    parts = [I.apply(g[0], v, []), I.apply(g[1], v, []), I.apply(g[2], v, [])];
    return new I.U8(parts[0], parts[1], parts[2]);
  }
  try { I.apply(I.ABG[0], v, []); } catch (_) { return undefined; }
  return new I.U8(v);
}
const tag = (v) => ({ __sandboxBytes: b64encode(bytesOf(v)) });
const revive = (v) => (I.keys(v).length === 1 ? b64decode(v.__sandboxBytes) : v);
const NUM = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0 };
const fromJson = (_k, v) => (v === null || typeof v !== "object" ? v : I.hasOwn(v, "__sandboxBytes") ? (typeof v.__sandboxBytes === "string" ? revive(v) : v)
  : I.hasOwn(v, "__sandboxNumber") && typeof v.__sandboxNumber === "string" && I.keys(v).length === 1 && I.hasOwn(NUM, v.__sandboxNumber) ? NUM[v.__sandboxNumber] : v);
const numberTag = (v) => (v !== v ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : v === 0 && 1 / v < 0 ? "-0" : undefined);
// The node's arguments as JSON text, written here rather than by JSON.stringify, which asks every
// object for a toJSON a pack may have put on a prototype. Plain data only: own enumerable keys,
// arrays (holes as null), strings, numbers (tagged when JSON cannot say them), booleans, null;
// bytes travel as copies beside the text, indexed by { "__sandboxBuffer": i }.
function encode(v, buffers, depth) {
  if (v === null) return "null";
  const t = typeof v;
  if (t === "string") return I.JSONstringify(v);
  if (t === "number") { const n = numberTag(v); return n === undefined ? I.Str(v) : '{"__sandboxNumber":"' + n + '"}'; }
  if (t === "boolean") return v ? "true" : "false";
  if (t === "bigint") throw new I.TypeErr("A BigInt cannot be passed to the host.");
  if (t !== "object") return undefined;
  if (depth >= __JSON_DEPTH__) throw new I.TypeErr("A value passed to the host is nested more than __JSON_DEPTH__ levels deep (or refers to itself).");
  let out = "";
  if (I.isArray(v)) {
    for (let i = 0, n = v.length; i < n; i++) { const x = I.hasOwn(v, i) ? encode(v[i], buffers, depth + 1) : undefined; out += (i ? "," : "") + (x === undefined ? "null" : x); }
    return "[" + out + "]";
  }
  const b = bytesOf(v);
  if (b !== undefined) {
    const copy = new I.U8(I.apply(I.TA[2], b, []));
    I.apply(I.taSet, copy, [b]);
    buffers[buffers.length] = I.apply(I.TA[0], copy, []);
    return '{"__sandboxBuffer":' + buffers.length++ + "}";
  }
  const keys = I.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i], x = encode(v[k], buffers, depth + 1);
    if (x !== undefined) out += (out === "" ? "" : ",") + I.JSONstringify(k) + ":" + x;
  }
  return "{" + out + "}";
}
// A value we resolve a promise with is asked for "then": an own one keeps the question off its prototypes.
function inert(v) {
  if (v !== null && typeof v === "object" && !I.hasOwn(v, "then")) I.dp(v, "then", { __proto__: null, value: undefined, writable: true, configurable: true });
  return v;
}
function later() {
  let ok, no;
  const p = guard(new I.Promise((y, n) => { ok = y; no = n; }));
  return { p, ok: (v) => ok(inert(v)), no: (e) => no(e) };
}
const settled = (f) => { const d = later(); try { d.ok(f()); } catch (e) { d.no(e); } return d.p; };
const begin = (f) => { try { return f(); } catch (e) { const d = later(); d.no(e); return d.p; } };
function failure(r) {
  const error = new I.Err(I.Str(own(r, "message")));
  define(error, "code", own(r, "code"));
  return error;
}
function settle(r, ok, no) {
  if (own(r, "ok") === true) ok(inert(own(r, "value"))); else no(failure(r));
}
// The file of the innermost frame that is not ours (not the prelude, not this library, not a
// built-in), or "" when none is within 64 frames or when that frame did not call the capability
// itself but a built-in that did (Reflect.apply, Function.prototype.call, Array.prototype.map…: a
// pack can plant such a chain for the node's code to run): the kernel calls this from inside a
// host call to name a denied capability's caller. File names belong to the bytecode (module ids are the
// kernel's), unlike stack text, whose function names the guest writes. The hook is set only while
// our own Error is built, and nothing in that window runs guest code: the limit is a number, the
// engine reads only own data "name" properties, and the sites are never handed out.
function caller() {
  let file = "";
  const record = (_error, sites) => {
    for (let i = 0; i < sites.length; i++) {
      const site = sites[i], f = I.apply(I.getProto(site).getFileName, site, []);
      if (typeof f !== "string" || f === __PRELUDE_NAME__ || f === __LIBRARY_NAME__) continue;
      if (i > 0 && typeof I.apply(I.getProto(sites[i - 1]).getFileName, sites[i - 1], []) === "string") file = f;
      break;
    }
    return "";
  };
  const before = I.apply(I.getLimit, I.Err, []);
  I.apply(I.setLimit, I.Err, [64]);
  I.apply(I.setPrepare, I.Err, [record]);
  try { new I.Err(); } finally { I.apply(I.setPrepare, I.Err, [undefined]); I.apply(I.setLimit, I.Err, [before]); }
  return file;
}
// One host call: a guarded promise of the answer's value (through "map"), or of an Error carrying its code.
function call(kind, name, args, map) {
  const d = later(), buffers = { __proto__: null, length: 0 };
  try {
    const json = encode(args, buffers, 0);
    const answer = guard(I.host(kind, name, json, buffers.length === 0 ? undefined : buffers));
    I.apply(I.P[0], answer, [(text) => {
      try { settle(I.JSONparse(text, fromJson), map === undefined ? d.ok : (v) => d.ok(map(v)), d.no); } catch (e) { d.no(e); }
    }, d.no]);
  } catch (e) { d.no(e); }
  return d.p;
}
function response(r) {
  const body = own(r, "body"), status = own(r, "status"), list = own(r, "headers"), headers = list !== null && typeof list === "object" ? list : {};
  const get = (n) => { const v = own(headers, I.apply(I.lower, I.Str(n), [])); return v === undefined ? null : v; };
  const entries = () => {
    const keys = I.keys(headers), out = [];
    for (let i = 0; i < keys.length; i++) define(out, i, [keys[i], headers[keys[i]]]);
    return out;
  };
  return I.freeze(inert({
    ok: status >= 200 && status < 300, status, statusText: own(r, "statusText"), url: own(r, "url"),
    headers: I.freeze({ get, has: (n) => get(n) !== null, entries }),
    bytes: () => settled(() => body), arrayBuffer: () => settled(() => I.apply(I.TA[0], body, [])), text: () => settled(() => utf8decode(body)), json: () => settled(() => I.JSONparse(utf8decode(body))),
  }));
}
// init's fields are read only when own (a literal's): a missing one would be looked up on Object.prototype.
const fetch = (url, init) => begin(() => {
  const o = init === undefined || init === null ? {} : init, method = own(o, "method"), headers = own(o, "headers"), body = own(o, "body");
  const request = { method: method === undefined ? "GET" : I.Str(method), headers: headers === undefined ? {} : headers, body: body === undefined || body === null ? undefined : typeof body === "string" ? utf8encode(body) : body };
  return call("capability", "fetch", [I.Str(url), request], response);
});
const workspace = (op, path, data) => begin(() => {
  const p = path === undefined ? "." : I.Str(path);
  if (op === "readText") return call("capability", "workspace.read", [p], utf8decode);
  if (op === "readBytes") return call("capability", "workspace.read", [p]);
  if (op === "writeText") return call("capability", "workspace.write", [p, utf8encode(data)]);
  if (op === "writeBytes") return call("capability", "workspace.write", [p, data]);
  return call("capability", "workspace.list", [p]);
});
const getSecret = (name) => begin(() => call("capability", "getSecret", [I.Str(name)]));
return I.freeze({ tag, revive, call, settle, fetch, getSecret, workspace, caller });
})`;

function fill(source: string, withWasm: boolean): string {
  return source
    .replace('__WEB_PART__', () => webCoreSource())
    .replace('__WASM_PART__', () => (withWasm ? WASM_PART : 'const deliver = undefined;'))
    .replaceAll('__HOST_CALL__', JSON.stringify(HOST_CALL_GLOBAL))
    .replaceAll('__HOST_LOG__', JSON.stringify(HOST_LOG_GLOBAL))
    .replaceAll('__HOST_CLOCK__', JSON.stringify(HOST_CLOCK_GLOBAL))
    .replaceAll('__HOST_LIBRARY__', JSON.stringify(HOST_LIBRARY_GLOBAL))
    .replaceAll('__HOST_WASM__', JSON.stringify(HOST_WASM_GLOBAL))
    .replaceAll('__WASM_MAX_PARAMS__', String(LIMITS.wasmMaxParams))
    .replaceAll('__WASM_GLOBAL__', JSON.stringify(WASM_BRIDGE_GLOBAL));
}

/** Whole-line comments cost compile time in every run that evaluates the text (measured); they stay here, for readers. */
const uncommented = (source: string): string =>
  source
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('//'))
    .join('\n');

const LIBRARY_FILLED = uncommented(LIBRARY)
  .replaceAll('__PRELUDE_NAME__', JSON.stringify(PRELUDE_SCRIPT_NAME))
  .replaceAll('__LIBRARY_NAME__', JSON.stringify(LIBRARY_SCRIPT_NAME))
  .replaceAll('__JSON_DEPTH__', String(LIMITS.jsonDepth));

const CORE_PLAIN = uncommented(fill(CORE, false));
const CORE_WASM = uncommented(fill(CORE, true));

/** The core prelude for a run; `withWasm` binds the WASM bridge global for module evaluation. */
export function guestPreludeSource(withWasm: boolean): string {
  return withWasm ? CORE_WASM : CORE_PLAIN;
}

/** The bridge library: a function expression the host calls with the core's captured intrinsics. */
export function guestLibrarySource(): string {
  return LIBRARY_FILLED;
}
