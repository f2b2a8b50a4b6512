// The web-standard globals the guest offers: the capability-free part of the WinterTC Minimum
// Common API that quickjs-ng lacks (TextEncoder/TextDecoder, atob/btoa, URL/URLSearchParams,
// structuredClone, crypto.getRandomValues/randomUUID). quickjs-ng's own queueMicrotask and
// DOMException are kept as they are. Intl, timers, crypto.subtle, streams, Blob, EventTarget and
// the fetch classes are not offered.
//
// Why lazy: guest source costs compile time in every run that evaluates it (about 0.5 ms per KB),
// and most runs use none of these. So the core prelude defines each global as an accessor; the
// first touch asks the host to compile that global's part (HOST_WEB_GLOBAL) and turns the global
// into the plain writable, configurable data property the platform has (enumerable as WebIDL
// says, see WEB_GLOBALS). A part compiled in a run is gone with the run: the sandbox goes back to
// its image afterwards. The price is paid by a run that uses one, each time (measured on a busy
// 2-core machine: URL, the largest part at 26 KB, about 15 ms; TextDecoder 4 ms; the others 1-2 ms).
//
// Invariants (the prelude's captured-intrinsics rule): a part runs after packs may have patched
// any prototype or global, so it uses only what the core captured before any pack ran (W, which
// is WEB in guest/prelude-core.js, and the core's I): no global is read at call time, no method is looked up on a shared
// prototype, no for-of, spread or destructuring (but over an iterable the caller passed, which
// the standard iterates: URLSearchParams of a Map), no assignment that could reach a setter
// (internal lists are filled through I.dp), no read past a string's or an array's end. What a pack
// can still do is what it can do to any built-in: replace the global or a method of its prototype
// before the node uses it. Randomness comes from the host (HOST_RANDOM_GLOBAL), never from the
// guest's Math.random, and only while a run is bound.

import { WEB_BASE64_PART, WEB_CLONE_PART, WEB_CRYPTO_PART } from './guest-web-small.ts';
import { WEB_TEXT_PART } from './guest-web-text.ts';
import { WEB_IDNA_PART } from './guest-web-url-host.ts';
import { WEB_URL_PART } from './guest-web-url.ts';

/** Compiles one part: `(part, W, need)` → the part's exports (the host evaluates its source). */
export const HOST_WEB_GLOBAL = '__sandboxHostWeb';
/** `(n)` → an ArrayBuffer of n cryptographically strong random bytes (n ≤ RANDOM_BYTES_MAX), or undefined outside a run. */
export const HOST_RANDOM_GLOBAL = '__sandboxHostRandom';
/** The name the parts are evaluated under: a reserved "sandbox:" name, never a module's, so a capability a part calls (forEach(getSecret)) has an unknown caller. */
export const WEB_SCRIPT_NAME = 'sandbox:web';
/** The most bytes one getRandomValues call may ask for (the Web Crypto quota). */
export const RANDOM_BYTES_MAX = 65536;

/**
 * Each offered global and the part that defines it. Property shape as WebIDL gives it on the web
 * and in Node: interfaces are not enumerable, operations and attributes (atob, crypto) are.
 */
export const WEB_GLOBALS = {
  TextEncoder: 'text',
  TextDecoder: 'text',
  atob: 'base64',
  btoa: 'base64',
  URL: 'url',
  URLSearchParams: 'url',
  structuredClone: 'clone',
  crypto: 'crypto',
} as const;

/** The parts by name: one per group of globals, and idna, which the URL part loads for a domain that needs it. */
const PARTS: Readonly<Record<string, string>> = {
  text: WEB_TEXT_PART,
  base64: WEB_BASE64_PART,
  url: WEB_URL_PART,
  idna: WEB_IDNA_PART,
  clone: WEB_CLONE_PART,
  crypto: WEB_CRYPTO_PART,
};

/**
 * Helpers every part starts with (a few lines, compiled with each part): own-data definitions,
 * WebIDL string conversions, the toStringTag of an interface, and bytes to a binary string in
 * native calls (a view with an own length, so the engine never asks a shared getter for it).
 */
const COMMON = String.raw`"use strict";
const I = W.I, A = I.apply, U8 = I.U8, ST = W.ST, TypeErr = I.TypeErr, DOMEx = W.DOMEx;
const own = (v) => ({ __proto__: null, value: v, writable: true, enumerable: true, configurable: true });
const dp = (o, k, v) => I.dp(o, k, own(v));
const push = (list, v) => I.dp(list, list.length, own(v));
const str = (v) => { if (typeof v === "symbol") throw new TypeErr("Cannot convert a Symbol value to a string."); return I.Str(v); };
const usv = (v) => A(W.S.toWellFormed, str(v), []);
const named = (C, name) => { I.dp(C.prototype, ST, { __proto__: null, value: name, configurable: true }); return C; };
const needs = (n, got, what) => { if (got < n) throw new TypeErr(what + ": " + n + " argument" + (n > 1 ? "s" : "") + " required, but only " + got + " present."); };
const bytesOf = (v) => {
  if (I.isView(v)) { const g = A(W.TAG, v, []) === undefined ? I.DV : I.TA; return new U8(A(g[0], v, []), A(g[1], v, []), A(g[2], v, [])); }
  try { A(I.ABG[0], v, []); } catch (_) { return undefined; }
  return new U8(v);
};
const latin1 = (b, from, to) => {
  let s = "";
  const buffer = A(I.TA[0], b, []), base = A(I.TA[1], b, []);
  for (let k = from; k < to; k += 32768) {
    const n = to - k < 32768 ? to - k : 32768, v = new U8(buffer, base + k, n);
    I.dp(v, "length", { __proto__: null, value: n });
    s += A(I.fromCharCode, undefined, v);
  }
  return s;
};
`;

/**
 * Compile time grows with the text (measured), so what a part is compiled from has no comment
 * lines and no indentation; the parts hold no multi-line string, so nothing else changes.
 */
const compact = (source: string): string =>
  source
    .split('\n')
    .map((line) => line.trimStart())
    .filter((line) => line !== '' && !line.startsWith('//'))
    .join('\n');

const COMPILED: ReadonlyMap<string, string> = new Map(
  Object.entries(PARTS).map(([name, body]) => [name, compact(`(function (W, need) {\n${COMMON}${body}\n})`)]),
);

/** Every part, for a sandbox that compiles them all before its image is taken (sandbox.ts `prepareSandbox`). */
export const WEB_PART_NAMES: readonly string[] = Object.keys(PARTS);

/** The parts the globals a source names need (a plain text search: a false hit only compiles a part ahead). */
export function webPartsNamedIn(sources: Iterable<string>): string[] {
  const needed = new Set<string>();
  for (const source of sources) for (const [name, p] of Object.entries(WEB_GLOBALS)) if (source.includes(name)) needed.add(p);
  return [...needed];
}

/** The source of one part, or undefined for a name that is not one: a function of (W, need). */
export function webPartSource(part: string): string | undefined {
  return COMPILED.get(part);
}
