// The first code that runs in every fresh guest context, before any module is loaded (so before
// any pack's top-level code): it removes code generation, timers and shared memory, captures the
// host bridge functions and deletes their globals, takes the stack-frame hook away from the guest,
// hides function source, and installs the capability globals as non-writable, non-configurable
// wrappers. Being first is the point: a pack's top level sees the hardened world, and cannot
// replace `fetch` or `getSecret` to spy on the node's own calls.
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
import { WASM_BRIDGE_GLOBAL } from './wasm-facade.ts';

/** Globals the host defines before the core runs; the core deletes them. */
export const HOST_CALL_GLOBAL = '__sandboxHostCall';
export const HOST_LOG_GLOBAL = '__sandboxHostLog';
export const HOST_LIBRARY_GLOBAL = '__sandboxHostLibrary';
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
const host = G[__HOST_CALL__], hostLog = G[__HOST_LOG__], hostLibrary = G[__HOST_LIBRARY__], hostWasm = G[__HOST_WASM__];
delete G[__HOST_CALL__]; delete G[__HOST_LOG__]; delete G[__HOST_LIBRARY__]; delete G[__HOST_WASM__];
const prepare = gopd(E, "prepareStackTrace"), limit = gopd(E, "stackTraceLimit");
const I = freeze({ host, isArray: Array.isArray, Promise, JSONparse: JSON.parse, JSONstringify: JSON.stringify, isView: ArrayBuffer.isView, U8: Uint8Array, AB: ArrayBuffer,
  slice: ArrayBuffer.prototype.slice, apply: Reflect.apply, keys: O.keys, hasOwn: O.hasOwn, freeze, fromCharCode: String.fromCharCode, Err: E, Str: String,
  unescape, encodeURIComponent, getProto, setPrepare: prepare.set, getLimit: limit.get, setLimit: limit.set });
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
  if (typeof this !== "function" || I.apply(fileName, this, []) === undefined) return I.apply(nativeToString, this, []);
  const own = gopd(this, "name"), name = own !== undefined && typeof own.value === "string" ? own.value : "", p = gopd(this, "prototype"), kind = getProto(this);
  if (p !== undefined && p.writable === false) return "class " + name + " { [sandbox: source hidden] }";
  return (kind === AF ? "async function " : kind === GF ? "function* " : kind === AGF ? "async function* " : "function ") + name + "() { [sandbox: source hidden] }";
} }.toString;
defineProperty(FP, "toString", { get: function () { return hidden; }, set: function (v) {
  if (this === FP) throw new T("Function.prototype.toString cannot be replaced in the sandbox.");
  defineProperty(this, "toString", { value: v, writable: true, enumerable: true, configurable: true });
}, enumerable: false, configurable: false });
for (const [label, proto] of [["Function", getProto(function () {})], ["AsyncFunction", getProto(async function () {})],
  ["GeneratorFunction", getProto(function* () {})], ["AsyncGeneratorFunction", getProto(async function* () {})]]) {
  const blocked = function () { throw new T(label + " constructor is not available in the sandbox: code cannot be generated at run time."); };
  defineProperty(blocked, "prototype", { value: proto, ...lock });
  defineProperty(proto, "constructor", { value: blocked, ...lock });
  if (label === "Function") defineProperty(G, "Function", { value: blocked, ...lock });
}
let lib;
const L = () => lib || (lib = hostLibrary(I));
const isBytes = (v) => I.isView(v) || v instanceof I.AB;
const toJson = (_k, v) => (isBytes(v) ? L().tag(v) : v);
const NUM = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0 };
const fromJson = (_k, v) => (v !== null && typeof v === "object" ? (typeof v.__sandboxBytes === "string" ? L().revive(v) : typeof v.__sandboxNumber === "string" && I.keys(v).length === 1 && I.hasOwn(NUM, v.__sandboxNumber) ? NUM[v.__sandboxNumber] : v) : v);
const constant = (name, value) => defineProperty(G, name, { value: freeze(value), ...lock });
const show = (v) => {
  if (typeof v === "string") return v;
  if (v instanceof I.Err) return I.Str(v.name) + ": " + I.Str(v.message);
  try { const j = I.JSONstringify(v, toJson); return j === undefined ? I.Str(v) : j; } catch (_) { return I.Str(v); }
};
const logger = (level) => (...args) => { let t = ""; for (let i = 0; i < args.length; i++) t += (i ? " " : "") + show(args[i]); hostLog(level, t); };
constant("console", { log: logger("log"), info: logger("info"), warn: logger("warn"), error: logger("error"), debug: logger("debug") });
const via = (name) => async function (a, b) { return L()[name](a, b); };
const ws = (op) => async (p, d) => L().workspace(op, p, d);
constant("fetch", via("fetch"));
constant("getSecret", via("getSecret"));
constant("workspace", { readText: ws("readText"), readBytes: ws("readBytes"), writeText: ws("writeText"), writeBytes: ws("writeBytes"), list: ws("list") });
__WASM_PART__
return freeze({ serialize: (v) => I.JSONstringify(v === undefined ? null : v, toJson), parse: (t) => I.JSONparse(t, fromJson), deliver, caller: () => L().caller() });
})(globalThis)`;

/** The WASM bridge, in the core of runs that have WASM modules only (compiling it costs every run). */
const WASM_PART = String.raw`// The WASM bridge (the facades' only way out): a promise of the export's value, or a rejection
// with an Error carrying the host's code. Plain number lists take the fast path below.
const waiting = O.create(null);
const failure = (result) => { const error = new I.Err(result.message); error.code = result.code; return error; };
const deliver = (id, r) => {
  const settle = waiting[id];
  if (settle === undefined) return;
  delete waiting[id];
  if (typeof r !== "string") { settle[0](r); return; }
  const result = I.JSONparse(r, fromJson);
  if (result.ok === true) settle[0](result.value); else settle[1](failure(result));
};
const slowWasm = async (m, e, a) => L().call("wasm", "call", [m, e, a]);
const wasmCall = (m, e, a) => {
  if (typeof m === "string" && typeof e === "string" && I.isArray(a) && a.length <= __WASM_MAX_PARAMS__) {
    const list = [m, e], n = a.length;
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
const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const D = new I.U8(128);
for (let i = 0; i < 64; i++) D[A.charCodeAt(i)] = i;
function b64decode(text) {
  const s = text.replace(/=+$/, ""), out = new I.U8((s.length * 3) >> 2);
  let j = 0;
  for (let i = 0; i < s.length; i += 4) {
    const n = (D[s.charCodeAt(i)] << 18) | (D[s.charCodeAt(i + 1)] << 12) | (D[s.charCodeAt(i + 2)] << 6) | D[s.charCodeAt(i + 3)];
    if (j < out.length) out[j++] = (n >> 16) & 255;
    if (j < out.length) out[j++] = (n >> 8) & 255;
    if (j < out.length) out[j++] = n & 255;
  }
  return out;
}
function b64encode(b) {
  let out = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += A[(n >> 18) & 63] + A[(n >> 12) & 63] + (i + 1 < b.length ? A[(n >> 6) & 63] : "=") + (i + 2 < b.length ? A[n & 63] : "=");
  }
  return out;
}
function utf8encode(text) {
  const bin = I.unescape(I.encodeURIComponent(I.Str(text))), out = new I.U8(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
function utf8decode(b) {
  let out = "", i = 0;
  while (i < b.length) {
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
const tag = (v) => ({ __sandboxBytes: b64encode(I.isView(v) ? new I.U8(v.buffer, v.byteOffset, v.byteLength) : new I.U8(v)) });
const revive = (v) => (I.keys(v).length === 1 ? b64decode(v.__sandboxBytes) : v);
const NUM = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity, "-0": -0 };
const fromJson = (_k, v) => (v !== null && typeof v === "object" ? (typeof v.__sandboxBytes === "string" ? revive(v) : typeof v.__sandboxNumber === "string" && I.keys(v).length === 1 && I.hasOwn(NUM, v.__sandboxNumber) ? NUM[v.__sandboxNumber] : v) : v);
const numberTag = (v) => (v !== v ? "NaN" : v === Infinity ? "Infinity" : v === -Infinity ? "-Infinity" : v === 0 && 1 / v < 0 ? "-0" : undefined);
function encodeArgs(args) {
  const buffers = [];
  const json = I.JSONstringify(args, (_k, v) => {
    if (typeof v === "number") { const t = numberTag(v); return t === undefined ? v : { __sandboxNumber: t }; }
    if (I.isView(v)) { buffers[buffers.length] = I.apply(I.slice, v.buffer, [v.byteOffset, v.byteOffset + v.byteLength]); return { __sandboxBuffer: buffers.length - 1 }; }
    if (v instanceof I.AB) { buffers[buffers.length] = I.apply(I.slice, v, [0]); return { __sandboxBuffer: buffers.length - 1 }; }
    return v;
  });
  return [json === undefined ? "[]" : json, buffers.length === 0 ? undefined : buffers];
}
async function callTagged(kind, name, args) {
  const [json, buffers] = encodeArgs(args);
  return I.JSONparse(await I.host(kind, name, json, buffers), fromJson);
}
// The file of the innermost frame that is not ours (not the prelude, not this library, not a
// built-in), or "" when none is within 64 frames: the kernel calls this from inside a host call
// to name a denied capability's caller. File names belong to the bytecode (module ids are the
// kernel's), unlike stack text, whose function names the guest writes. The hook is set only while
// our own Error is built, and nothing in that window runs guest code: the limit is a number, the
// engine reads only own data "name" properties, and the sites are never handed out.
function caller() {
  let file = "";
  const record = (_error, sites) => {
    for (let i = 0; i < sites.length; i++) {
      const site = sites[i], f = I.apply(I.getProto(site).getFileName, site, []);
      if (typeof f === "string" && f !== __PRELUDE_NAME__ && f !== __LIBRARY_NAME__) { file = f; break; }
    }
    return "";
  };
  const before = I.apply(I.getLimit, I.Err, []);
  I.apply(I.setLimit, I.Err, [64]);
  I.apply(I.setPrepare, I.Err, [record]);
  try { new I.Err(); } finally { I.apply(I.setPrepare, I.Err, [undefined]); I.apply(I.setLimit, I.Err, [before]); }
  return file;
}
async function call(kind, name, args) {
  const result = await callTagged(kind, name, args);
  if (result.ok === true) return result.value;
  const error = new I.Err(result.message);
  error.code = result.code;
  throw error;
}
function response(r) {
  const body = r.body, headers = r.headers;
  const get = (n) => { const v = headers[I.Str(n).toLowerCase()]; return v === undefined ? null : v; };
  return I.freeze({
    ok: r.status >= 200 && r.status < 300, status: r.status, statusText: r.statusText, url: r.url,
    headers: I.freeze({ get, has: (n) => get(n) !== null, entries: () => I.keys(headers).map((k) => [k, headers[k]]) }),
    bytes: async () => body, arrayBuffer: async () => body.buffer, text: async () => utf8decode(body), json: async () => I.JSONparse(utf8decode(body)),
  });
}
async function fetch(url, init) {
  const o = init === undefined || init === null ? {} : init;
  const request = { method: o.method === undefined ? "GET" : I.Str(o.method), headers: o.headers === undefined ? {} : o.headers };
  if (o.body !== undefined && o.body !== null) request.body = typeof o.body === "string" ? utf8encode(o.body) : o.body;
  return response(await call("capability", "fetch", [I.Str(url), request]));
}
async function workspace(op, path, data) {
  const p = path === undefined ? "." : I.Str(path);
  if (op === "readText") return utf8decode(await call("capability", "workspace.read", [p]));
  if (op === "readBytes") return call("capability", "workspace.read", [p]);
  if (op === "writeText") return call("capability", "workspace.write", [p, utf8encode(data)]);
  if (op === "writeBytes") return call("capability", "workspace.write", [p, data]);
  return call("capability", "workspace.list", [p]);
}
const getSecret = (name) => call("capability", "getSecret", [I.Str(name)]);
return I.freeze({ tag, revive, call, callTagged, fetch, getSecret, workspace, caller });
})`;

function fill(source: string, withWasm: boolean): string {
  return source
    .replace('__WASM_PART__', () => (withWasm ? WASM_PART : 'const deliver = undefined;'))
    .replaceAll('__HOST_CALL__', JSON.stringify(HOST_CALL_GLOBAL))
    .replaceAll('__HOST_LOG__', JSON.stringify(HOST_LOG_GLOBAL))
    .replaceAll('__HOST_LIBRARY__', JSON.stringify(HOST_LIBRARY_GLOBAL))
    .replaceAll('__HOST_WASM__', JSON.stringify(HOST_WASM_GLOBAL))
    .replaceAll('__WASM_MAX_PARAMS__', String(LIMITS.wasmMaxParams))
    .replaceAll('__WASM_GLOBAL__', JSON.stringify(WASM_BRIDGE_GLOBAL));
}

const LIBRARY_FILLED = LIBRARY.replaceAll('__PRELUDE_NAME__', JSON.stringify(PRELUDE_SCRIPT_NAME)).replaceAll('__LIBRARY_NAME__', JSON.stringify(LIBRARY_SCRIPT_NAME));

const CORE_PLAIN = fill(CORE, false);
const CORE_WASM = fill(CORE, true);

/** The core prelude for a run; `withWasm` binds the WASM bridge global for module evaluation. */
export function guestPreludeSource(withWasm: boolean): string {
  return withWasm ? CORE_WASM : CORE_PLAIN;
}

/** The bridge library: a function expression the host calls with the core's captured intrinsics. */
export function guestLibrarySource(): string {
  return LIBRARY_FILLED;
}
