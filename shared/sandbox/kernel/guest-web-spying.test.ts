// Can a pack spy on the data the node hands the web-standard globals (guest-web.ts)? Their parts
// are compiled on first use, after packs have run, so each is a chance for a patched prototype
// or global to be handed the node's text, bytes, URLs, cloned values or random bytes. Each case
// is one patch in a pack the node imports (the capability attacks of shared/testing/prelude-spying.attacks.ts
// and patches of what these parts would reach for: Map/Set/Date/RegExp methods, String methods,
// the URI functions, Array.from, DOMException...), followed by the same node program, which
// touches every global for the first time after the patch. The node must get the same answers
// as without a patch, and the pack must have seen nothing. Replacing a global or one of its own
// methods is out of scope: that is the node calling the pack's code (see guest-web.ts).
import { describe, expect, it } from 'vitest';
import type { GuestModule, KernelRunRequest, RunResult } from '../../protocol/run.ts';
import { loadQuickJsNg } from '../../testing/quickjs-engine.ts';
import { runKernel } from './kernel.ts';
import { ATTACKS, spySource } from '../../testing/prelude-spying.attacks.ts';
import { SYSTEM_CLOCK } from './system-clock.ts';

/** A wrapping patch of each method, noting its receiver and arguments. */
const wrap = (targets: string): string =>
  `each(${targets}, (p) => { const t = p[0], k = p[1], f = t[k]; if (typeof f !== "function") return; patch(t, k, { value: function (...a) { note(String(k) + "-this", this); note(String(k) + "-arg", a[0]); return apply(f, this, a); }, writable: true }); });`;

/** A noting getter over each accessor. */
const getters = (targets: string): string =>
  `each(${targets}, (p) => { const t = p[0], k = p[1], d = gopd(t, k); if (!d || !d.get) return; patch(t, k, { get() { note(String(k) + "-get", this); return apply(d.get, this, []); } }); });`;

const WEB_ATTACKS: Record<string, string> = {
  ...ATTACKS,
  'Map and Set methods replaced (structuredClone memory, cloned maps)': wrap(
    '[[Map.prototype, "get"], [Map.prototype, "set"], [Map.prototype, "has"], [Map.prototype, "forEach"], [Set.prototype, "add"], [Set.prototype, "forEach"]]',
  ),
  'Map, Set, ArrayBuffer and RegExp accessors replaced': getters(
    '[[Map.prototype, "size"], [Set.prototype, "size"], [ArrayBuffer.prototype, "byteLength"], [ArrayBuffer.prototype, "resizable"], [ArrayBuffer.prototype, "detached"], [RegExp.prototype, "source"], [RegExp.prototype, "flags"], [RegExp.prototype, "global"], [DataView.prototype, "buffer"], [TA, Symbol.toStringTag]]',
  ),
  'Date, String, TypedArray and ArrayBuffer methods replaced': wrap(
    '[[Date.prototype, "getTime"], [Date.prototype, "valueOf"], [String.prototype, "slice"], [String.prototype, "normalize"], [String.prototype, "toWellFormed"], [String.prototype, "isWellFormed"], [String.prototype, "codePointAt"], [String.prototype, "indexOf"], [String.prototype, "substring"], [TA, "set"], [TA, "subarray"], [TA, "slice"], [ArrayBuffer.prototype, "slice"], [ArrayBuffer.prototype, "transfer"]]',
  ),
  'URI functions, escape, Array.from, String.fromCharCode and DOMException replaced': [
    wrap(
      '[[globalThis, "decodeURIComponent"], [globalThis, "encodeURIComponent"], [globalThis, "escape"], [globalThis, "unescape"], [Array, "from"], [String, "fromCharCode"], [String, "fromCodePoint"], [Object, "defineProperty"], [Object, "create"], [Object, "freeze"], [Object, "getPrototypeOf"], [Object, "setPrototypeOf"], [Object, "getOwnPropertyDescriptor"]]',
    ),
    `const DE = DOMException; patch(globalThis, "DOMException", { value: function (m, n) { note("DOMException", m); return new DE(m, n); }, writable: true });`,
  ].join('\n'),
  'Symbol.iterator getters on Array.prototype and Object.prototype (sequence and record arguments)': `const ai = Array.prototype[Symbol.iterator]; patch(Array.prototype, Symbol.iterator, { get() { note("array-iterator-get", this); return ai; } }); patch(Object.prototype, Symbol.iterator, { get() { note("object-iterator-get", this); return undefined; } });`,
  'Object.prototype getters for the names the parts use on their own records': `each(["scheme", "host", "path", "query", "frag", "need", "lead", "p", "n", "0", "1", "transfer", "stream", "fatal", "ignoreBOM"], (n) => { if (n === "0" || n === "1") return; patch(Object.prototype, n, { get() { note("record-" + n, this); return undefined; } }); });`,
};

const ALL_WEB_ATTACKS = Object.values(WEB_ATTACKS)
  .map((patches) => `{\n${patches}\n}`)
  .join('\n');

/**
 * The node's program: every web global, first touched after the pack's patches, with secret data.
 * The pack records only inside \`w(...)\`, the web calls themselves: what the node does around them
 * with built-ins (a Map literal, Array.from) is the node's own business, and patchable anyway.
 */
const NODE_CODE = String.raw`import { done, watch } from "@h/spy";
watch(false);
const w = (f) => { watch(true); try { return f(); } finally { watch(false); } };
const secret = "s3cret-" + input, text = secret + "\u00e9\u20ac";
const bytes = w(() => new TextEncoder().encode(text));
const into = new Uint8Array(64), wrote = w(() => new TextEncoder().encodeInto(secret, into));
const head = new Uint8Array(bytes.buffer, 0, 10), tail = new Uint8Array(bytes.buffer, 10, 4);
const streamed = w(() => { const d = new TextDecoder(); return d.decode(head, { stream: true }) + d.decode(tail); });
const badBytes = new Uint8Array(5), u16Bytes = new Uint8Array(4);
badBytes[0] = 0x73; badBytes[1] = 0xff; badBytes[2] = 0x33; badBytes[3] = 0xe2; badBytes[4] = 0x82; u16Bytes[0] = 0x73; u16Bytes[2] = 0x33;
const bad = w(() => new TextDecoder().decode(badBytes)), u16 = w(() => new TextDecoder("utf-16le").decode(u16Bytes));
const b64 = w(() => btoa(secret)), back = w(() => atob(b64));
const url = w(() => new URL("https://u:" + secret + "@h.test/p/../" + secret + "?k=" + secret + "#" + secret));
const href = w(() => { url.searchParams.append("t", secret); url.searchParams.sort(); return url.href; }), q = w(() => url.searchParams.get("k"));
const pairs = [["a", secret], ["b", "2"]];
const record = { a: secret }, fromRecord = w(() => new URLSearchParams(record).toString());
const params = w(() => new URLSearchParams(pairs)), listed = w(() => { const it = params.entries(), a = it.next().value, b = it.next().value; return a[0] + "=" + a[1] + "&" + b[0] + "=" + b[1]; });
const host = w(() => new URL("https://b\u00fccher-" + input + ".test/").host);
const m = new Map(), st = new Set(); st.add(secret); m.set(secret, st);
const u8 = new Uint8Array(3); u8[0] = 1; u8[1] = 2; u8[2] = 3;
const orig = { secret, m, d: new Date(7), r: /s3cret/gi, u8, e: new TypeError(secret) };
orig.self = orig;
const c = w(() => structuredClone(orig));
const refused = w(() => { try { structuredClone({ secret, f() {} }); } catch (e) { return e.name; } });
const random = w(() => crypto.getRandomValues(new Uint8Array(32))), uuid = w(() => crypto.randomUUID());
for (let i = 0; i < 5; i++) await null;
const seen = done();
return { seen, bytes: bytes.length, wrote: [wrote.read, wrote.written], streamed, bad: escape(bad), u16, b64, back, href, q, params: params.toString(), fromRecord, listed, host,
  clone: [c.self === c, c.secret, c.m.get(secret).has(secret), c.d.getTime(), String(c.r), Array.from(c.u8).join(), c.e.message], refused, random: random.length, uuid: uuid.length };
`;

/** Appended to every pack: lets the node say when its hooks count (the spy prelude's own flag). */
const WATCH = 'export function watch(on) { busy = !on; }';

const EXPECTED = {
  seen: [],
  bytes: 14,
  wrote: [9, 9],
  streamed: 's3cret-42é€',
  bad: 's%uFFFD3%uFFFD',
  u16: 's3',
  b64: btoa('s3cret-42'),
  back: 's3cret-42',
  href: 'https://u:s3cret-42@h.test/s3cret-42?k=s3cret-42&t=s3cret-42#s3cret-42',
  q: 's3cret-42',
  params: 'a=s3cret-42&b=2',
  fromRecord: 'a=s3cret-42',
  listed: 'a=s3cret-42&b=2',
  host: 'xn--bcher-42-65a.test',
  clone: [true, 's3cret-42', true, 7, '/s3cret/gi', '1,2,3', 's3cret-42'],
  refused: 'DataCloneError',
  random: 32,
  uuid: 36,
};

const spyModule = (patches: string): GuestModule => ({
  moduleId: 'js:spy',
  kind: 'js',
  packName: '@h/spy',
  packVersion: '1.0.0',
  displayName: '@h/spy',
  source: `${spySource(patches)}\n${WATCH}\n`,
  imports: {},
  digest: '0'.repeat(64),
});

async function spiedRun(patches: string): Promise<RunResult> {
  const engine = await loadQuickJsNg();
  const request: KernelRunRequest = {
    code: NODE_CODE,
    entries: { '@h/spy': 'js:spy' },
    modules: { 'js:spy': spyModule(patches) },
    inputs: { input: 42 },
    grants: { fetch: false, workspace: false, secrets: [] },
    timeoutMs: 20_000,
  };
  const outcome = await runKernel(request, { engine, ...SYSTEM_CLOCK, hostCall: async () => ({ ok: false, code: 'internal', message: 'none' }) });
  expect(outcome.healthy).toBe(true);
  return outcome.result;
}

describe('a pack that patches the shared world cannot spy on the data the node hands the web globals', () => {
  it('with no patch, the node program gets the standard answers', async () => {
    expect(await spiedRun('')).toMatchObject({ ok: true, value: EXPECTED });
  });

  for (const [attack, patches] of Object.entries(WEB_ATTACKS)) {
    it(attack, async () => {
      expect(await spiedRun(patches)).toMatchObject({ ok: true, value: EXPECTED });
    });
  }

  it('all of them at once', async () => {
    expect(await spiedRun(ALL_WEB_ATTACKS)).toMatchObject({ ok: true, value: EXPECTED });
  });
});
