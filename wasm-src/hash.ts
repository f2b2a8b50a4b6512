// Byte-oriented module for the pack `packs/sandbox-hash` (built by scripts/build-wasm.mjs):
// SHA-256, CRC-32 and base64 over bytes and strings, through the canonical ABI's core lowering
// (docs/wasm-host.md). It has no imports (`--use abort=`: a failed check is a trap) and exports
// its memory, bounded by `--maximumMemory`, and `cabi_realloc`, which the host calls to place
// each bytes/string argument; every such argument arrives as a (ptr, len) pair of i32s.
//
// A bytes/string result is returned through a return area: the export returns the address of two
// little-endian u32s (ptr, len) naming the result's bytes in memory. One static, 4-aligned area
// serves every export, since one instance serves one call (instance per call: nothing here
// survives a call, so the tables below are built by the call that needs them and the allocator is
// a bump allocator that never frees). No export needs a `cabi_post_`.
//
// What a call allocates, for an input of n bytes (the pack's memoryPagesMax follows from it):
// every export n (its argument); base64_encode 4 * ceil(n / 3) more; base64_decode 256 bytes more (it
// decodes in place: 3 bytes out for every 4 in); SHA-256 nothing more (static areas); CRC-32 8 KB
// more from 512 bytes up (its tables). Below the heap sit under 1 KB of static data. The manifest
// declares the string form of an export (sha256Text, crc32Text, base64EncodeText) on the same
// function as its bytes form: both lower to (ptr, len), and every export costs a fresh instance.

// --- Static areas (zero-filled data; no allocation) ---

/** The return area: (ptr, len) of a bytes/string result. */
const RET: usize = memory.data(8, 4);
/** SHA-256: the eight working hash words, the message schedule, the padded last block(s), the digest. */
const STATE: usize = memory.data(32, 4);
const W: usize = memory.data(256, 4);
const TAIL: usize = memory.data(128, 4);
const DIGEST: usize = memory.data(32, 4);
/** The digest in lowercase hex. */
const HEX_OUT: usize = memory.data(64, 4);
/**
 * CRC-32's eight 256-entry slicing tables (8 KB) and base64's value of each byte (0xff: not in
 * the alphabet) are allocated by the calls that build them, from the heap, not reserved here: so
 * every static area sits in memory's first 4 KB page, the heap starts right after, and a call on
 * a small input touches one page of its fresh instance's memory (each page touched costs a fresh
 * instance a page fault and its unmapping; docs/wasm-host.md).
 */
let CRC_TABLE: usize = 0;
let B64_VALUE: usize = 0;

/** SHA-256 round constants (FIPS 180-4, 4.2.2). */
const K: usize = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** "0123456789abcdef". */
const HEX: usize = memory.data<u8>([0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66]);

/** The base64 alphabet of RFC 4648, section 4: A-Z a-z 0-9 + /. */
const B64: usize = memory.data<u8>([
  0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f, 0x50,
  0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66,
  0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76,
  0x77, 0x78, 0x79, 0x7a, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x2b, 0x2f,
]);
const PAD: u8 = 0x3d; // "="

/** Fill the return area with (ptr, len) and answer its address. */
function result(ptr: usize, len: usize): usize {
  store<u32>(RET, <u32>ptr, 0);
  store<u32>(RET, <u32>len, 4);
  return RET;
}

// --- The allocator the host lowers arguments through ---

// A bump allocator of our own rather than the stub runtime's heap.alloc: the stub initialises its
// heap offset in a start function, and a module with a start function is never instantiated ahead
// of its call (docs/wasm-host.md, "Stateless by contract"); this one starts from a constant 0 and
// finds the heap base on first use. Nothing is ever freed: the instance is dropped after its call.

/** The first free byte; 0 until the first allocation. */
let top: usize = 0;

/** `size` bytes aligned to `align` (a power of two), growing memory as needed; a trap when it is full. */
function bump(size: usize, align: usize): usize {
  if (top == 0) top = __heap_base;
  const ptr = (top + align - 1) & ~(align - 1);
  const end = ptr + size;
  const have = (<usize>memory.size()) << 16;
  if (end > have && memory.grow(<i32>((end - have + 0xffff) >>> 16)) < 0) unreachable();
  top = end;
  return ptr;
}

/**
 * `cabi_realloc(old_ptr, old_size, align, new_size) -> ptr`, as the canonical ABI calls it: with
 * old_ptr 0 a new block of new_size bytes, otherwise that block resized to new_size with its first
 * min(old_size, new_size) bytes kept (in place when it is the last block and aligned, else moved).
 * `align` must be a power of two up to 65536 and new_size at most 1 GB, or the call traps.
 */
export function cabi_realloc(oldPtr: usize, oldSize: usize, align: usize, newSize: usize): usize {
  if (align == 0 || (align & (align - 1)) != 0 || align > 0x10000 || newSize > 0x40000000) unreachable();
  if (oldPtr != 0 && oldPtr + oldSize == top && (oldPtr & (align - 1)) == 0) {
    top = oldPtr;
    return bump(newSize, 1);
  }
  const ptr = bump(newSize, align);
  if (oldPtr != 0) memory.copy(ptr, oldPtr, min(oldSize, newSize));
  return ptr;
}

// --- SHA-256 (FIPS 180-4) ---

/** One 64-byte block at `p` into STATE. */
function compress(p: usize): void {
  for (let i: usize = 0; i < 16; i++) store<u32>(W + (i << 2), bswap<u32>(load<u32>(p + (i << 2))));
  for (let i: usize = 16; i < 64; i++) {
    const w15 = load<u32>(W + ((i - 15) << 2));
    const w2 = load<u32>(W + ((i - 2) << 2));
    const s0 = rotr<u32>(w15, 7) ^ rotr<u32>(w15, 18) ^ (w15 >>> 3);
    const s1 = rotr<u32>(w2, 17) ^ rotr<u32>(w2, 19) ^ (w2 >>> 10);
    store<u32>(W + (i << 2), load<u32>(W + ((i - 16) << 2)) + s0 + load<u32>(W + ((i - 7) << 2)) + s1);
  }
  let a = load<u32>(STATE, 0);
  let b = load<u32>(STATE, 4);
  let c = load<u32>(STATE, 8);
  let d = load<u32>(STATE, 12);
  let e = load<u32>(STATE, 16);
  let f = load<u32>(STATE, 20);
  let g = load<u32>(STATE, 24);
  let h = load<u32>(STATE, 28);
  for (let i: usize = 0; i < 64; i++) {
    const t1 = h + (rotr<u32>(e, 6) ^ rotr<u32>(e, 11) ^ rotr<u32>(e, 25)) + ((e & f) ^ (~e & g)) + load<u32>(K + (i << 2)) + load<u32>(W + (i << 2));
    const t2 = (rotr<u32>(a, 2) ^ rotr<u32>(a, 13) ^ rotr<u32>(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  store<u32>(STATE, load<u32>(STATE, 0) + a, 0);
  store<u32>(STATE, load<u32>(STATE, 4) + b, 4);
  store<u32>(STATE, load<u32>(STATE, 8) + c, 8);
  store<u32>(STATE, load<u32>(STATE, 12) + d, 12);
  store<u32>(STATE, load<u32>(STATE, 16) + e, 16);
  store<u32>(STATE, load<u32>(STATE, 20) + f, 20);
  store<u32>(STATE, load<u32>(STATE, 24) + g, 24);
  store<u32>(STATE, load<u32>(STATE, 28) + h, 28);
}

/** SHA-256 of `len` bytes at `ptr` into DIGEST (32 bytes, big-endian words). */
function digest(ptr: usize, len: usize): void {
  store<u32>(STATE, 0x6a09e667, 0);
  store<u32>(STATE, 0xbb67ae85, 4);
  store<u32>(STATE, 0x3c6ef372, 8);
  store<u32>(STATE, 0xa54ff53a, 12);
  store<u32>(STATE, 0x510e527f, 16);
  store<u32>(STATE, 0x9b05688c, 20);
  store<u32>(STATE, 0x1f83d9ab, 24);
  store<u32>(STATE, 0x5be0cd19, 28);
  const full = len & ~(<usize>63);
  for (let off: usize = 0; off < full; off += 64) compress(ptr + off);
  // Padding: the rest, 0x80, zeros, the length in bits as a big-endian u64 ending a block.
  const rest = len - full;
  memory.fill(TAIL, 0, 128);
  memory.copy(TAIL, ptr + full, rest);
  store<u8>(TAIL + rest, 0x80);
  const blocks: usize = rest < 56 ? 1 : 2;
  store<u64>(TAIL + (blocks << 6) - 8, bswap<u64>(<u64>len << 3));
  compress(TAIL);
  if (blocks == 2) compress(TAIL + 64);
  for (let i: usize = 0; i < 8; i++) store<u32>(DIGEST + (i << 2), bswap<u32>(load<u32>(STATE + (i << 2))));
}

/** `sha256(bytes) -> string`: the digest in lowercase hex (64 characters). */
export function sha256(ptr: usize, len: usize): usize {
  digest(ptr, len);
  for (let i: usize = 0; i < 32; i++) {
    const byte = load<u8>(DIGEST + i);
    store<u8>(HEX_OUT + (i << 1), load<u8>(HEX + (byte >> 4)));
    store<u8>(HEX_OUT + (i << 1) + 1, load<u8>(HEX + (byte & 15)));
  }
  return result(HEX_OUT, 64);
}

/** `sha256_bytes(bytes) -> bytes`: the raw 32-byte digest. */
export function sha256_bytes(ptr: usize, len: usize): usize {
  digest(ptr, len);
  return result(DIGEST, 32);
}

// --- CRC-32 (IEEE 802.3: reflected, polynomial 0xEDB88320, as zlib and PNG) ---

/** Entry `n` of slicing table `k` (k = 0 is the classic byte-at-a-time table). */
function crcTable(k: usize, n: u32): u32 {
  return load<u32>(CRC_TABLE + (k << 10) + (<usize>n << 2));
}

/** Inputs shorter than this are checksummed bit by bit: building the tables costs about as much as 512 bytes' bits. */
const CRC_TABLE_FROM: usize = 512;

/**
 * `crc32(bytes) -> i32`: the checksum's 32 bits (negative as an i32 when the top bit is set).
 * Short inputs bit by bit, with no tables (a fresh instance has none, and building them is
 * ~4,000 steps); longer ones slicing-by-8 (8 bytes per step through eight 256-entry tables,
 * built first: 8 KB), then byte at a time for the last 0-7 bytes.
 */
export function crc32(ptr: usize, len: usize): u32 {
  if (len < CRC_TABLE_FROM) {
    let c: u32 = 0xffffffff;
    for (let i: usize = 0; i < len; i++) {
      c ^= <u32>load<u8>(ptr + i);
      for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & (0 - (c & 1)));
    }
    return ~c;
  }
  CRC_TABLE = bump(8192, 4);
  for (let n: u32 = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & (0 - (c & 1)));
    store<u32>(CRC_TABLE + (<usize>n << 2), c);
  }
  for (let n: u32 = 0; n < 256; n++) {
    let c = crcTable(0, n);
    for (let k: usize = 1; k < 8; k++) {
      c = (c >>> 8) ^ crcTable(0, c & 0xff);
      store<u32>(CRC_TABLE + (k << 10) + (<usize>n << 2), c);
    }
  }
  let crc: u32 = 0xffffffff;
  let i: usize = 0;
  for (; i + 8 <= len; i += 8) {
    const lo = load<u32>(ptr + i) ^ crc; // little-endian: the first byte is the low one
    const hi = load<u32>(ptr + i + 4);
    crc =
      crcTable(7, lo & 0xff) ^ crcTable(6, (lo >>> 8) & 0xff) ^ crcTable(5, (lo >>> 16) & 0xff) ^ crcTable(4, lo >>> 24) ^
      crcTable(3, hi & 0xff) ^ crcTable(2, (hi >>> 8) & 0xff) ^ crcTable(1, (hi >>> 16) & 0xff) ^ crcTable(0, hi >>> 24);
  }
  for (; i < len; i++) crc = crcTable(0, (crc ^ load<u8>(ptr + i)) & 0xff) ^ (crc >>> 8);
  return ~crc;
}

// --- base64 (RFC 4648, section 4: standard alphabet, padded) ---

/** `base64_encode(bytes) -> string`: 4 characters for every 3 bytes, "=" padded. */
export function base64_encode(ptr: usize, len: usize): usize {
  const outLen = ((len + 2) / 3) << 2;
  const out = bump(outLen, 1);
  const full = len - (len % 3);
  let o = out;
  for (let i: usize = 0; i < full; i += 3) {
    const n = (<u32>load<u8>(ptr + i) << 16) | (<u32>load<u8>(ptr + i + 1) << 8) | <u32>load<u8>(ptr + i + 2);
    store<u8>(o, load<u8>(B64 + (n >>> 18)));
    store<u8>(o + 1, load<u8>(B64 + ((n >>> 12) & 63)));
    store<u8>(o + 2, load<u8>(B64 + ((n >>> 6) & 63)));
    store<u8>(o + 3, load<u8>(B64 + (n & 63)));
    o += 4;
  }
  const rest = len - full;
  if (rest != 0) {
    const n = (<u32>load<u8>(ptr + full) << 16) | (rest == 2 ? <u32>load<u8>(ptr + full + 1) << 8 : 0);
    store<u8>(o, load<u8>(B64 + (n >>> 18)));
    store<u8>(o + 1, load<u8>(B64 + ((n >>> 12) & 63)));
    store<u8>(o + 2, rest == 2 ? load<u8>(B64 + ((n >>> 6) & 63)) : PAD);
    store<u8>(o + 3, PAD);
  }
  return result(out, outLen);
}

/**
 * `base64_decode(string) -> bytes`, strictly: the standard alphabet only, a length that is a
 * multiple of 4, "=" only as one or two last characters. Anything else (whitespace, base64url's
 * "-" and "_", missing padding) traps with `unreachable`. Bits below the last character's share
 * of a padded group are ignored, as Node and atob do. Decodes in place: every 4 characters become
 * at most 3 bytes written at or before where they were read.
 */
export function base64_decode(ptr: usize, len: usize): usize {
  if ((len & 3) != 0) unreachable();
  if (len == 0) return result(ptr, 0);
  B64_VALUE = bump(256, 4);
  memory.fill(B64_VALUE, 0xff, 256);
  for (let v: usize = 0; v < 64; v++) store<u8>(B64_VALUE + <usize>load<u8>(B64 + v), <u8>v);
  const last = len - 4;
  let o = ptr;
  for (let i: usize = 0; i < last; i += 4) {
    const a = <u32>load<u8>(B64_VALUE + <usize>load<u8>(ptr + i));
    const b = <u32>load<u8>(B64_VALUE + <usize>load<u8>(ptr + i + 1));
    const c = <u32>load<u8>(B64_VALUE + <usize>load<u8>(ptr + i + 2));
    const d = <u32>load<u8>(B64_VALUE + <usize>load<u8>(ptr + i + 3));
    if ((a | b | c | d) > 63) unreachable();
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    store<u8>(o, <u8>(n >>> 16));
    store<u8>(o + 1, <u8>(n >>> 8));
    store<u8>(o + 2, <u8>n);
    o += 3;
  }
  // The last group: "xxxx", "xxx=" or "xx==".
  const c2 = load<u8>(ptr + last + 2);
  const c3 = load<u8>(ptr + last + 3);
  const a = <u32>load<u8>(B64_VALUE + <usize>load<u8>(ptr + last));
  const b = <u32>load<u8>(B64_VALUE + <usize>load<u8>(ptr + last + 1));
  const c = c2 == PAD && c3 == PAD ? 0 : <u32>load<u8>(B64_VALUE + <usize>c2);
  const d = c3 == PAD ? 0 : <u32>load<u8>(B64_VALUE + <usize>c3);
  if ((a | b | c | d) > 63) unreachable();
  const n = (a << 18) | (b << 12) | (c << 6) | d;
  store<u8>(o, <u8>(n >>> 16));
  o += 1;
  if (c2 != PAD) {
    store<u8>(o, <u8>(n >>> 8));
    o += 1;
  }
  if (c3 != PAD) {
    store<u8>(o, <u8>n);
    o += 1;
  }
  return result(ptr, o - ptr);
}
