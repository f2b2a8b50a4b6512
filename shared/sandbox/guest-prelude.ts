// The first code that runs in every fresh guest context, before any module is loaded (so before
// any pack's top-level code): it removes code generation and timers, captures the host bridge
// functions and deletes their globals, and installs the capability globals as non-writable
// wrappers. Being first is the point: a pack's top level sees the hardened world, and cannot
// wrap `fetch` or `getSecret` to spy on the node's own calls.
//
// Marshaling follows the spec's settled rules: guest→host typed arrays travel as real
// ArrayBuffers beside a JSON argument list; host→guest bytes arrive as `{ "__sandboxBytes": b64 }`
// and are revived here; the host always resolves with a tagged result, and this wrapper turns a
// failure into a normal guest Error carrying `code`.
//
// The prelude evaluates to an object of helpers the kernel uses itself (result serialization,
// input parsing); that object is never reachable from guest code.

import { WASM_BRIDGE_GLOBAL } from './wasm-facade.ts';

/** Globals the host defines before the prelude runs; the prelude deletes them. */
export const HOST_CALL_GLOBAL = '__sandboxHostCall';
export const HOST_LOG_GLOBAL = '__sandboxHostLog';

const PRELUDE = String.raw`(function (G) {
  "use strict";
  const host = G[__HOST_CALL__];
  const hostLog = G[__HOST_LOG__];
  delete G[__HOST_CALL__];
  delete G[__HOST_LOG__];
  const defineProperty = Object.defineProperty;
  const getPrototypeOf = Object.getPrototypeOf;
  const freeze = Object.freeze;
  const keys = Object.keys;
  const apply = Reflect.apply;
  const JSONparse = JSON.parse;
  const JSONstringify = JSON.stringify;
  const isView = ArrayBuffer.isView;
  const fromCharCode = String.fromCharCode;
  const U8 = Uint8Array;
  const AB = ArrayBuffer;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const StringCtor = String;
  const sliceBuffer = ArrayBuffer.prototype.slice;

  // --- code generation and timers ---------------------------------------------------------
  delete G.eval;
  for (const name of ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate"]) delete G[name];
  const intrinsics = [
    ["Function", getPrototypeOf(function () {})],
    ["AsyncFunction", getPrototypeOf(async function () {})],
    ["GeneratorFunction", getPrototypeOf(function* () {})],
    ["AsyncGeneratorFunction", getPrototypeOf(async function* () {})],
  ];
  for (const [label, proto] of intrinsics) {
    const blocked = function () { throw new TypeErrorCtor(label + " constructor is not available in the sandbox: code cannot be generated at run time."); };
    defineProperty(blocked, "prototype", { value: proto, writable: false, enumerable: false, configurable: false });
    defineProperty(proto, "constructor", { value: blocked, writable: false, enumerable: false, configurable: false });
    if (label === "Function") defineProperty(G, "Function", { value: blocked, writable: false, enumerable: false, configurable: false });
  }

  // --- bytes ---------------------------------------------------------------------------------
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const LOOKUP = new U8(128);
  for (let i = 0; i < 64; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;
  function b64decode(text) {
    const clean = text.replace(/=+$/, "");
    const out = new U8((clean.length * 3) >> 2);
    let j = 0;
    for (let i = 0; i < clean.length; i += 4) {
      const a = LOOKUP[clean.charCodeAt(i)], b = LOOKUP[clean.charCodeAt(i + 1)];
      const c = LOOKUP[clean.charCodeAt(i + 2)], d = LOOKUP[clean.charCodeAt(i + 3)];
      const n = (a << 18) | (b << 12) | (c << 6) | d;
      if (j < out.length) out[j++] = (n >> 16) & 255;
      if (j < out.length) out[j++] = (n >> 8) & 255;
      if (j < out.length) out[j++] = n & 255;
    }
    return out;
  }
  function b64encode(bytes) {
    let out = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
      out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
      out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63] : "=";
      out += i + 2 < bytes.length ? ALPHABET[n & 63] : "=";
    }
    return out;
  }
  function utf8encode(text) {
    const bin = unescape(encodeURIComponent(StringCtor(text)));
    const out = new U8(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  function utf8decode(bytes) {
    let out = "";
    let i = 0;
    while (i < bytes.length) {
      const b = bytes[i];
      let cp = 0xfffd, need = 0;
      if (b < 0x80) { cp = b; } else if (b >= 0xc2 && b < 0xe0) { cp = b & 0x1f; need = 1; } else if (b >= 0xe0 && b < 0xf0) { cp = b & 0x0f; need = 2; } else if (b >= 0xf0 && b < 0xf5) { cp = b & 0x07; need = 3; }
      i++;
      let ok = true;
      for (let k = 0; k < need; k++) {
        const c = bytes[i];
        if (c === undefined || (c & 0xc0) !== 0x80) { ok = false; break; }
        cp = (cp << 6) | (c & 0x3f);
        i++;
      }
      if (!ok) cp = 0xfffd;
      if (cp > 0xffff) { cp -= 0x10000; out += fromCharCode(0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff)); } else out += fromCharCode(cp);
    }
    return out;
  }
  function revive(_key, value) {
    if (value !== null && typeof value === "object" && typeof value.__sandboxBytes === "string" && keys(value).length === 1) return b64decode(value.__sandboxBytes);
    return value;
  }
  function bytesToTag(_key, value) {
    if (isView(value)) return { __sandboxBytes: b64encode(new U8(value.buffer, value.byteOffset, value.byteLength)) };
    if (value instanceof AB) return { __sandboxBytes: b64encode(new U8(value)) };
    return value;
  }

  // --- the bridge ----------------------------------------------------------------------------
  function encodeArgs(args) {
    const buffers = [];
    const json = JSONstringify(args, function (_key, value) {
      if (isView(value)) {
        const index = buffers.length;
        buffers[index] = apply(sliceBuffer, value.buffer, [value.byteOffset, value.byteOffset + value.byteLength]);
        return { __sandboxBuffer: index };
      }
      if (value instanceof AB) {
        const index = buffers.length;
        buffers[index] = apply(sliceBuffer, value, [0]);
        return { __sandboxBuffer: index };
      }
      return value;
    });
    return [json === undefined ? "[]" : json, buffers];
  }
  async function callTagged(kind, name, args) {
    const where = new ErrorCtor().stack;
    const encoded = encodeArgs(args);
    const raw = await host(kind, name, encoded[0], encoded[1], where);
    return JSONparse(raw, revive);
  }
  async function call(kind, name, args) {
    const result = await callTagged(kind, name, args);
    if (result.ok === true) return result.value;
    const error = new ErrorCtor(result.message);
    error.code = result.code;
    throw error;
  }
  function constant(name, value) {
    defineProperty(G, name, { value: freeze(value), writable: false, enumerable: false, configurable: false });
  }

  // --- capabilities --------------------------------------------------------------------------
  function show(value) {
    if (typeof value === "string") return value;
    if (value instanceof ErrorCtor) return StringCtor(value.name) + ": " + StringCtor(value.message);
    try { const json = JSONstringify(value, bytesToTag); return json === undefined ? StringCtor(value) : json; } catch (_) { return StringCtor(value); }
  }
  function logger(level) { return function (...args) { let text = ""; for (let i = 0; i < args.length; i++) text += (i ? " " : "") + show(args[i]); hostLog(level, text); }; }
  constant("console", { log: logger("log"), info: logger("info"), warn: logger("warn"), error: logger("error"), debug: logger("debug") });

  function makeResponse(r) {
    const body = r.body;
    const headers = r.headers;
    return freeze({
      ok: r.status >= 200 && r.status < 300, status: r.status, statusText: r.statusText, url: r.url,
      headers: freeze({ get(name) { const v = headers[StringCtor(name).toLowerCase()]; return v === undefined ? null : v; }, has(name) { return headers[StringCtor(name).toLowerCase()] !== undefined; }, entries() { return keys(headers).map((k) => [k, headers[k]]); } }),
      bytes: async () => body,
      arrayBuffer: async () => body.buffer,
      text: async () => utf8decode(body),
      json: async () => JSONparse(utf8decode(body)),
    });
  }
  defineProperty(G, "fetch", { value: async function fetch(url, init) {
    const options = init === undefined || init === null ? {} : init;
    const body = options.body === undefined || options.body === null ? undefined : typeof options.body === "string" ? utf8encode(options.body) : options.body;
    const request = { method: options.method === undefined ? "GET" : StringCtor(options.method), headers: options.headers === undefined ? {} : options.headers };
    if (body !== undefined) request.body = body;
    return makeResponse(await call("capability", "fetch", [StringCtor(url), request]));
  }, writable: false, enumerable: false, configurable: false });
  constant("workspace", {
    readText: async (path) => utf8decode(await call("capability", "workspace.read", [StringCtor(path)])),
    readBytes: async (path) => call("capability", "workspace.read", [StringCtor(path)]),
    writeText: async (path, text) => call("capability", "workspace.write", [StringCtor(path), utf8encode(text)]),
    writeBytes: async (path, bytes) => call("capability", "workspace.write", [StringCtor(path), bytes]),
    list: async (path) => call("capability", "workspace.list", [path === undefined ? "." : StringCtor(path)]),
  });
  defineProperty(G, "getSecret", { value: async function getSecret(name) { return call("capability", "getSecret", [StringCtor(name)]); }, writable: false, enumerable: false, configurable: false });
  if (__WITH_WASM__) {
    defineProperty(G, __WASM_GLOBAL__, { value: async function (moduleId, exportName, args) { return callTagged("wasm", "call", [moduleId, exportName, args]); }, writable: true, enumerable: false, configurable: true });
  }

  // --- helpers for the kernel only -------------------------------------------------------------
  return freeze({
    serialize(value) { return JSONstringify(value === undefined ? null : value, bytesToTag); },
    parse(text) { return JSONparse(text, revive); },
  });
})(globalThis)`;

/** The name the prelude is evaluated under; its frames are skipped when naming a caller. */
export const PRELUDE_SCRIPT_NAME = 'sandbox:prelude';

/** The prelude source for a run; `withWasm` binds the WASM bridge global for module evaluation. */
export function guestPreludeSource(withWasm: boolean): string {
  return PRELUDE.replaceAll('__HOST_CALL__', JSON.stringify(HOST_CALL_GLOBAL))
    .replaceAll('__HOST_LOG__', JSON.stringify(HOST_LOG_GLOBAL))
    .replaceAll('__WASM_GLOBAL__', JSON.stringify(WASM_BRIDGE_GLOBAL))
    .replaceAll('__WITH_WASM__', withWasm ? 'true' : 'false');
}
