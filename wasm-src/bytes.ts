// Reference byte-oriented module: CRC-32 over a range of linear memory. It is NOT exposed as a
// pack module in v1 — the scalar ABI gives guest code no way to put bytes into the host
// instance's memory. It exists to pin down what a typed-array ABI has to provide
// (see docs/wasm-byte-abi.md): an allocator export, a memory export, a (ptr, len) convention.

/** Reserve `len` bytes of linear memory and return their address (the stub runtime never frees). */
export function alloc(len: i32): i32 {
  return <i32>heap.alloc(<usize>len);
}

/** CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of `len` bytes at `ptr`. */
export function crc32(ptr: i32, len: i32): i32 {
  let crc: u32 = 0xffffffff;
  for (let i = 0; i < len; i++) {
    crc ^= <u32>load<u8>(<usize>(ptr + i));
    for (let k = 0; k < 8; k++) {
      crc = (crc >>> 1) ^ (0xedb88320 & (0 - (crc & 1)));
    }
  }
  return <i32>~crc;
}
