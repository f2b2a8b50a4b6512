// The web-standard globals the guest offers: the capability-free part of the WinterTC Minimum
// Common API that quickjs-ng lacks (TextEncoder/TextDecoder, atob/btoa, URL/URLSearchParams,
// structuredClone, crypto.getRandomValues/randomUUID). quickjs-ng's own queueMicrotask and
// DOMException are kept as they are. Intl, timers, crypto.subtle, streams, Blob, EventTarget and
// the fetch classes are not offered. Their code is guest source in guest/web/ (one piece per idea,
// built into parts by scripts/build-guest.mjs); this file hands the parts to the host, each
// compiled on the first touch of one of its globals (WEB_GLOBALS).
//
// Invariants: a part uses only what the core captured before any pack ran (the rules: PARTS);
// randomness comes from the host (HOST_RANDOM_GLOBAL), never from the guest's Math.random.

import { WEB_BASE64_PART, WEB_CLONE_PART, WEB_CRYPTO_PART, WEB_IDNA_PART, WEB_TEXT_PART, WEB_URL_PART } from '../guest/guest-sources.generated.ts';

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
 *
 * Why lazy: guest source costs compile time in every run that evaluates it, and most runs use none
 * of these. So the core prelude defines each global as an accessor; the first touch asks the host
 * to compile that global's part (HOST_WEB_GLOBAL) and turns the global into the plain writable,
 * configurable data property the platform has (enumerable as above). A part compiled in a run is
 * gone with the run: the sandbox goes back to its image afterwards (the price per part:
 * docs/performance.md).
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

/**
 * The parts by name: one per group of globals, and idna, which the URL part loads for a domain that
 * needs it. Each text is the function of (W, need) the engine compiles, built from the pieces in
 * guest/web/ by scripts/build-guest.mjs (which part takes which pieces: its WEB_PARTS).
 *
 * The rules every part keeps (the prelude's captured-intrinsics rule): a part runs after packs may
 * have patched any prototype or global, so it uses only what the core captured before any pack ran
 * (W, which is WEB in guest/prelude-core.js, and the core's I): no global is read at call time, no
 * method is looked up on a shared prototype, no for-of, spread or destructuring (but over an
 * iterable the caller passed, which the standard iterates: URLSearchParams of a Map), no assignment
 * that could reach a setter (internal lists are filled through I.dp), no read past a string's or an
 * array's end. What a pack can still do is what it can do to any built-in: replace the global or a
 * method of its prototype before the node uses it. Randomness comes from the host
 * (HOST_RANDOM_GLOBAL), never from the guest's Math.random, and only while a run is bound.
 */
const PARTS: ReadonlyMap<string, string> = new Map([
  ['text', WEB_TEXT_PART],
  ['base64', WEB_BASE64_PART],
  ['url', WEB_URL_PART],
  ['idna', WEB_IDNA_PART],
  ['clone', WEB_CLONE_PART],
  ['crypto', WEB_CRYPTO_PART],
]);

/** Every part, for a sandbox that compiles them all before its image is taken (sandbox.ts `prepareSandbox`). */
export const WEB_PART_NAMES: readonly string[] = [...PARTS.keys()];

/** The parts the globals a source names need (a plain text search: a false hit only compiles a part ahead). */
export function webPartsNamedIn(sources: Iterable<string>): string[] {
  const needed = new Set<string>();
  for (const source of sources) for (const [name, p] of Object.entries(WEB_GLOBALS)) if (source.includes(name)) needed.add(p);
  return [...needed];
}

/** The source of one part, or undefined for a name that is not one: a function of (W, need). */
export function webPartSource(part: string): string | undefined {
  return PARTS.get(part);
}
