// Test support: the attacks of shared/sandbox/kernel/prelude-spying.test.ts as data, shared with the fixture case
// "pack-cannot-spy-on-capability-calls" in fixtures/kernel/hardening.json (which the worker pool and
// Chromium also run); that test checks the fixture still holds exactly this pack, program and answers.

/** The scripted host's answers, by capability name; bytes as the kernel's tag, so a fixture can hold them. */
export const SPY_HOST_ANSWERS: Record<string, unknown> = {
  getSecret: 's3cret-K',
  fetch: {
    status: 200,
    statusText: 'OK',
    url: 'https://api.test/x',
    headers: { 'x-token': 's3cret-H', 'content-type': 'application/json' },
    body: { __sandboxBytes: btoa('{"token":"s3cret-F"}') },
  },
  'workspace.read': { __sandboxBytes: btoa('file s3cret-R') },
  'workspace.list': [{ name: 's3cret-L.txt', kind: 'file' }],
  'workspace.write': null,
};

/**
 * The pack's common part: `note` records what a hook was handed (as text, with intrinsics it
 * captured before patching, and never re-entering itself); `patch` applies one patch and
 * remembers how to undo it; `done` undoes them all, so the node's result is serialized unhooked.
 */
export const SPY_PRELUDE = String.raw`
const seen = [], undo = [], S = JSON.stringify, gopd = Object.getOwnPropertyDescriptor, def = Object.defineProperty, apply = Reflect.apply;
const TA = Object.getPrototypeOf(Uint8Array.prototype), taLen = gopd(TA, "length").get, taBuf = gopd(TA, "buffer").get, taOff = gopd(TA, "byteOffset").get;
const abLen = gopd(ArrayBuffer.prototype, "byteLength").get, isView = ArrayBuffer.isView, fcc = String.fromCharCode, U8 = Uint8Array, then = Promise.prototype.then;
let busy = false;
const bytes = (u) => { let s = ""; const n = apply(taLen, u, []); for (let i = 0; i < n; i++) s += fcc(u[i]); return s; };
const text = (v) => {
  if (typeof v === "string") return v;
  if (isView(v)) { try { return "view:" + bytes(new U8(apply(taBuf, v, []), apply(taOff, v, []), apply(taLen, v, []))); } catch (_) { return "view"; } }
  try { apply(abLen, v, []); return "buffer:" + bytes(new U8(v)); } catch (_) {}
  try { return S(v); } catch (e) { return "?"; }
};
// Null-prototype descriptors and index loops: the pack's own bookkeeping must not trip its hooks.
const add = (list, v) => def(list, list.length, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
const note = (label, v) => { if (busy) return; busy = true; try { add(seen, label + " " + text(v)); } finally { busy = false; } };
const patch = (target, key, descriptor) => {
  const before = gopd(target, key);
  try { def(target, key, { __proto__: null, configurable: true, ...descriptor }); } catch (_) { return; }
  add(undo, () => (before === undefined ? delete target[key] : def(target, key, { __proto__: null, ...before })));
};
const each = (list, f) => { for (let i = 0; i < list.length; i++) f(list[i]); };
export function done() { busy = true; for (let i = undo.length - 1; i >= 0; i--) undo[i](); return seen; }
`;

/** One patch per attack; each would see secret data or the node's arguments without the fix. */
export const ATTACKS: Record<string, string> = {
  'Object.prototype getter for the bytes tag (every host answer passes the reviver)': `patch(Object.prototype, "__sandboxBytes", { get() { note("bytes-tag", this); return undefined; } });`,
  'Object.prototype getter for the number tag': `patch(Object.prototype, "__sandboxNumber", { get() { note("number-tag", this); return undefined; } });`,
  'Object.prototype.toJSON (argument serialization)': `patch(Object.prototype, "toJSON", { value() { note("toJSON", this); return this; }, writable: true });`,
  'Object.prototype setter for "body" (the request the bridge builds)': `patch(Object.prototype, "body", { set(v) { note("body-setter", v); def(this, "body", { __proto__: null, value: v, writable: true, enumerable: true, configurable: true }); } });`,
  'Object.prototype getters for fetch init fields the node left out': `each(["method", "headers", "body"], (n) => patch(Object.prototype, n, { get() { note("init-" + n, this); return undefined; } }));`,
  'Promise.prototype.then replaced': `patch(Promise.prototype, "then", { value: function (f, r) { return apply(then, this, [(v) => { note("then", v); return typeof f === "function" ? f(v) : v; }, r]); }, writable: true });`,
  'Promise.prototype.constructor getter (read by every await)': `let inside = false; patch(Promise.prototype, "constructor", { get() { if (!inside) { inside = true; try { apply(then, this, [(v) => note("constructor", v)]); } finally { inside = false; } } return Promise; } });`,
  'Promise[Symbol.species] (read by then)': `patch(Promise, Symbol.species, { get() { return function Spy(executor) { return new Promise((ok, no) => executor((v) => { note("species", v); ok(v); }, no)); }; } });`,
  'Object.prototype getter for "then" (read when a promise is resolved with an object)': `patch(Object.prototype, "then", { get() { note("then-getter", this); if (typeof this.text === "function") apply(then, this.text(), [(t) => note("then-body", t)]); return undefined; } });`,
  'String.prototype.charCodeAt replaced': `const cca = String.prototype.charCodeAt; patch(String.prototype, "charCodeAt", { value: function (i) { if (i === 0) note("charCodeAt", String(this)); return apply(cca, this, [i]); }, writable: true });`,
  'String.prototype.replace, toLowerCase and RegExp.prototype[Symbol.replace] replaced': [
    `each([[String.prototype, "replace"], [String.prototype, "toLowerCase"], [RegExp.prototype, Symbol.replace]], (p) => {`,
    `  const t = p[0], k = p[1], f = t[k]; patch(t, k, { value: function (...a) { note("string-" + String(k), this); note("string-arg", a[0]); return apply(f, this, a); }, writable: true });`,
    `});`,
  ].join('\n'),
  'Array.prototype index setters (arrays the bridge fills)': `each(["0", "1", "2", "3"], (i) => patch(Array.prototype, i, { set(v) { note("index-" + i, v); def(this, i, { __proto__: null, value: v, writable: true, enumerable: true, configurable: true }); } }));`,
  'Array.prototype[Symbol.iterator] replaced (destructuring, for-of, spread)': `const it = Array.prototype[Symbol.iterator]; patch(Array.prototype, Symbol.iterator, { value: function () { note("iterator", this); return apply(it, this, []); }, writable: true });`,
  'Array.prototype methods replaced (map, push, forEach, join, slice)': [
    `each(["map", "push", "forEach", "join", "slice"], (k) => {`,
    `  const f = Array.prototype[k]; patch(Array.prototype, k, { value: function (...a) { note("array-" + k, this); if (typeof a[0] === "function") { const g = a[0]; a[0] = function (...b) { const r = apply(g, this, b); note("array-" + k + "-result", r); return r; }; } return apply(f, this, a); }, writable: true });`,
    `});`,
  ].join('\n'),
  'TypedArray.prototype length/buffer/byteOffset/byteLength getters': `each(["length", "buffer", "byteOffset", "byteLength"], (k) => { const g = gopd(TA, k).get; patch(TA, k, { get() { note("typed-" + k, this); return apply(g, this, []); } }); });`,
  'ArrayBuffer.prototype.constructor getter (species of slice)': `patch(ArrayBuffer.prototype, "constructor", { get() { note("buffer-constructor", this); return ArrayBuffer; } });`,
  'ArrayBuffer[Symbol.hasInstance] (instanceof)': `const hi = Function.prototype[Symbol.hasInstance]; patch(ArrayBuffer, Symbol.hasInstance, { value(v) { note("hasInstance", v); return apply(hi, this, [v]); } });`,
  'Object.prototype getter for a header the node asks for and the response lacks': `patch(Object.prototype, "x-missing", { get() { note("missing-header", this); return undefined; } });`,
  'Object.prototype getters for property-descriptor fields': `each(["value", "get", "set", "writable", "enumerable", "configurable"], (k) => patch(Object.prototype, k, { get() { note("descriptor-" + k, this); return undefined; } }));`,
  'Object.prototype setter for "code" (the failure the bridge builds)': `patch(Object.prototype, "code", { set(v) { note("code-setter", this.message); def(this, "code", { __proto__: null, value: v, writable: true, enumerable: true, configurable: true }); } });`,
  'Function.prototype call/apply/bind and Object/JSON/Reflect globals replaced': [
    `each([[Function.prototype, "call"], [Function.prototype, "apply"], [Function.prototype, "bind"], [Object, "keys"], [Object, "hasOwn"], [JSON, "parse"], [JSON, "stringify"], [Reflect, "apply"]], (p) => {`,
    `  const t = p[0], k = p[1], f = t[k]; patch(t, k, { value: function (...a) { note("global-" + k, a[0]); note("global-" + k + "-this", this); return apply(f, this, a); }, writable: true });`,
    `});`,
  ].join('\n'),
};

/** The node's program: every capability path, raw values kept until the pack's hooks are undone. */
export const NODE_CODE = String.raw`import { done } from "@h/spy";
const secret = await getSecret("K");
const chained = await getSecret("K").then((s) => s + "!");
let denied;
try { await getSecret("NOPE"); } catch (e) { denied = e; }
const r = await fetch("https://api.test/x", { method: "POST", headers: { authorization: "Bearer " + secret }, body: "payload " + secret });
const header = r.headers.get("X-Token"), missing = r.headers.get("x-missing"), has = r.headers.has("content-type"), entries = r.headers.entries();
const text = await r.text(), json = await r.json(), bytes = await r.bytes(), ab = await r.arrayBuffer();
const mine = new Uint8Array(6);
for (let i = 0; i < 6; i++) mine[i] = 0x61 + i;
const r2 = await fetch("https://api.test/y", { method: "PUT", body: mine });
const readText = await workspace.readText("f.txt"), readBytes = await workspace.readBytes("f.txt");
await workspace.writeText("o.txt", "written " + secret);
await workspace.writeBytes("o.bin", mine);
const list = await workspace.list(".");
for (let i = 0; i < 20; i++) await null;
const seen = done();
const str = (u) => String.fromCharCode(...u);
return { seen, secret, chained, denied: [denied.code, denied.message], status: r.status, ok: r.ok, header, missing, has, entries, text, json, bytes: str(bytes),
  ab: str(new Uint8Array(ab)), status2: r2.status, readText, readBytes: str(readBytes), list };
`;

export const EXPECTED_VALUE = {
  seen: [],
  secret: 's3cret-K',
  chained: 's3cret-K!',
  denied: ['capability-denied', 'getSecret("NOPE") called by the node\'s code was denied: this node was not granted that secret.'],
  status: 200,
  ok: true,
  header: 's3cret-H',
  missing: null,
  has: true,
  entries: [
    ['x-token', 's3cret-H'],
    ['content-type', 'application/json'],
  ],
  text: '{"token":"s3cret-F"}',
  json: { token: 's3cret-F' },
  bytes: '{"token":"s3cret-F"}',
  ab: '{"token":"s3cret-F"}',
  status2: 200,
  readText: 'file s3cret-R',
  readBytes: 'file s3cret-R',
  list: [{ name: 's3cret-L.txt', kind: 'file' }],
};

export const EXPECTED_ASKED = [
  ['getSecret', ['K']],
  ['getSecret', ['K']],
  ['fetch', ['https://api.test/x', { method: 'POST', headers: { authorization: 'Bearer s3cret-K' }, body: 'bytes:payload s3cret-K' }]],
  ['fetch', ['https://api.test/y', { method: 'PUT', headers: {}, body: 'bytes:abcdef' }]],
  ['workspace.read', ['f.txt']],
  ['workspace.read', ['f.txt']],
  ['workspace.write', ['o.txt', 'bytes:written s3cret-K']],
  ['workspace.write', ['o.bin', 'bytes:abcdef']],
  ['workspace.list', ['.']],
];

/** Every attack at once, each in its own block. */
export const ALL_ATTACKS = Object.values(ATTACKS)
  .map((patches) => `{\n${patches}\n}`)
  .join('\n');

/** The spy pack's source for a set of patches. */
export const spySource = (patches: string): string => `${SPY_PRELUDE}\n${patches}\n`;
