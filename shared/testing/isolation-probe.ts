// Test support: guest code for the run-isolation tests (Node pool and browser runner alike). One run
// plants a secret all over the engine's heap, the next run asks every guest primitive that hands
// out fresh memory for its bytes and looks for that secret. The invariant under test is that no run
// can observe a byte another run left behind; the runners meet it by restoring each sandbox's
// engine memory to its snapshot from before any run, zeroing everything the run could have written
// (shared/sandbox/supply/sandbox-supply.ts), so this probe must come back clean however the engine's
// allocator behaves.
//
// The scan never holds the secret as text or bytes (that would plant it in its own heap): it gets
// the secret's character codes as an array of numbers and compares byte by byte.

/** The secret a test plants: random per test, so nothing else in memory can spell it by chance. */
export function isolationSecret(): string {
  const hex = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `sk-live-${hex}`;
}

/**
 * Run A: reads `apiKey` from its inputs and spreads it over small strings, one large string and
 * buffers of many sizes (so freed chunks of every size class hold it), then returns.
 */
export const PLANT_CODE = `
const keep = [];
for (let i = 0; i < 500; i++) keep.push(apiKey + ":" + i);
keep.push(apiKey.repeat(1 << 17));
for (const size of [1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 23]) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < apiKey.length; i++) bytes[i] = apiKey.charCodeAt(i);
  for (let n = apiKey.length; n < size; n *= 2) bytes.copyWithin(n, 0, n);
  keep.push(bytes);
}
return keep.length;
`;

/** Sizes each growable primitive is asked for (bytes): every size class up to 8 MB. */
const SIZES = [1 << 12, 1 << 16, 1 << 20, 1 << 22];

/**
 * Run B: `needle` (inputs) is the secret's character codes. Returns, per primitive, whether the
 * secret's bytes occur in what it handed out (`secret`) and whether anything in it is not zero, or
 * for strings and arrays not what the spec says (`dirty`). Names that start with
 * "SharedArrayBuffer" are present only where the guest has SharedArrayBuffer.
 */
export const SCAN_CODE = `
const SIZES = ${JSON.stringify(SIZES)};
const MB = (n) => n >= 1 << 20 ? (n >> 20) + " MB" : (n >> 10) + " KB";
function hasNeedle(u8) {
  const c0 = needle[0];
  let at = u8.indexOf(c0);
  while (at >= 0) {
    let k = 1;
    while (k < needle.length && u8[at + k] === needle[k]) k++;
    if (k === needle.length) return true;
    at = u8.indexOf(c0, at + 1);
  }
  return false;
}
function scan(buffer) {
  // Any word not zero, found by native min/max over chunks (a per-word loop is ten times slower).
  const words = new Int32Array(buffer, 0, buffer.byteLength >> 2);
  let dirty = false;
  for (let at = 0; at < words.length && !dirty; at += 16384) {
    const chunk = words.subarray(at, at + 16384);
    dirty = Math.max.apply(null, chunk) !== 0 || Math.min.apply(null, chunk) !== 0;
  }
  return { secret: dirty && hasNeedle(new Uint8Array(buffer)), dirty };
}
const out = {};
// Primitives that may not zero what they hand out go first, each kept alive, so that no zeroing
// allocation of this run overwrites leftovers before they are looked at.
const held = [];
if (typeof SharedArrayBuffer !== "undefined") {
  for (const size of SIZES) {
    const shared = new SharedArrayBuffer(16, { maxByteLength: size });
    shared.grow(size);
    held.push(shared);
    out["SharedArrayBuffer.prototype.grow " + MB(size)] = scan(shared);
  }
}
for (const size of SIZES) {
  const resizable = new ArrayBuffer(16, { maxByteLength: size });
  resizable.resize(size);
  held.push(resizable);
  out["ArrayBuffer.prototype.resize " + MB(size)] = scan(resizable);
}
for (const size of SIZES) {
  const moved = new ArrayBuffer(16).transfer(size);
  const movedResizable = new ArrayBuffer(16, { maxByteLength: size }).transfer(size);
  held.push(moved, movedResizable);
  out["ArrayBuffer.prototype.transfer " + MB(size)] = scan(moved);
  out["ArrayBuffer.prototype.transfer (resizable) " + MB(size)] = scan(movedResizable);
}
for (const size of SIZES) {
  out["new ArrayBuffer " + MB(size)] = scan(new ArrayBuffer(size));
  out["new ArrayBuffer (resizable, full) " + MB(size)] = scan(new ArrayBuffer(size, { maxByteLength: size }));
  if (typeof SharedArrayBuffer !== "undefined") out["new SharedArrayBuffer " + MB(size)] = scan(new SharedArrayBuffer(size));
}
held.length = 0;
const big = 1 << 20;
for (const [name, make] of [
  ["new Uint8Array", () => new Uint8Array(big)],
  ["new Int32Array", () => new Int32Array(big / 4)],
  ["new Float64Array", () => new Float64Array(big / 8)],
  ["new BigUint64Array", () => new BigUint64Array(big / 8)],
  ["Uint8Array.from", () => Uint8Array.from({ length: 1 << 20 })],
  ["new Uint8Array(iterable)", () => new Uint8Array(new Array(1 << 16))],
]) out[name] = scan(make().buffer);
const padded = "".padEnd(big);
out["String.prototype.padEnd"] = { secret: false, dirty: padded.length !== big || padded.replaceAll(" ", "") !== "" };
const repeated = "ab".repeat(big / 2);
out["String.prototype.repeat"] = { secret: false, dirty: repeated.length !== big || repeated.replaceAll("ab", "") !== "" };
// No own elements means every read is undefined; join("") reads them all natively.
const holes = Array(1 << 20);
out["Array(n)"] = { secret: false, dirty: holes.length !== 1 << 20 || Object.keys(holes).length !== 0 || holes.join("") !== "" };
return out;
`;

/** Inputs for SCAN_CODE. */
export function scanInputs(secret: string): { needle: number[] } {
  return { needle: Array.from(secret, (c) => c.charCodeAt(0)) };
}

export interface ScanEntry {
  readonly secret: boolean;
  readonly dirty: boolean;
}

/**
 * Primitives whose output is not zero by the engine's own doing: quickjs-ng commits a growable
 * SharedArrayBuffer's whole maximum without zeroing it, so its grown part shows freed bytes — in
 * a fresh engine only this run's own. The secret check still applies to them.
 */
export function mayBeDirty(name: string): boolean {
  return name.startsWith('SharedArrayBuffer.prototype.grow');
}
