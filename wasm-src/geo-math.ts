// Table-free sin, cos, asin and log for the geo reference module. AssemblyScript's own Math keeps
// lookup tables in linear memory (the 2/π bits for huge sin/cos arguments, log/exp tables), which
// forces a memory onto the module — and mapping a fresh linear memory is most of the cost of
// instance-per-call (see the `wasm` bench). These are the musl/FreeBSD msun kernels as
// AssemblyScript ships them (std/assembly/math.ts, Apache-2.0), minus the table paths: sin/cos
// reduce with the Cody–Waite scheme, exact for |x| < 2^20·π/2 ≈ 1.6e6 rad; beyond that they return
// NaN rather than a wrong number. No geographic input in degrees comes near that bound.

// ====================================================
// Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunPro, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

let reducedY0: f64 = 0;
let reducedY1: f64 = 0;

/** x = q·π/2 + (y0 + y1); returns q, leaves y0/y1 in globals. Caller guarantees the range. */
function rempio2(x: f64, ix: u32): i32 {
  const pio2_1 = reinterpret<f64>(0x3ff921fb54400000);
  const pio2_1t = reinterpret<f64>(0x3dd0b4611a626331);
  const pio2_2 = reinterpret<f64>(0x3dd0b4611a600000);
  const pio2_2t = reinterpret<f64>(0x3ba3198a2e037073);
  const pio2_3 = reinterpret<f64>(0x3ba3198a2e000000);
  const pio2_3t = reinterpret<f64>(0x397b839a252049c1);
  const invpio2 = reinterpret<f64>(0x3fe45f306dc9c883);

  const q = nearest(x * invpio2);
  let r = x - q * pio2_1;
  let w = q * pio2_1t;
  const j = ix >> 20;
  let y0 = r - w;
  let hi = <u32>(reinterpret<u64>(y0) >> 32);
  let i = j - ((hi >> 20) & 0x7ff);
  if (i > 16) {
    let t = r;
    w = q * pio2_2;
    r = t - w;
    w = q * pio2_2t - (t - r - w);
    y0 = r - w;
    hi = <u32>(reinterpret<u64>(y0) >> 32);
    i = j - ((hi >> 20) & 0x7ff);
    if (i > 49) {
      t = r;
      w = q * pio2_3;
      r = t - w;
      w = q * pio2_3t - (t - r - w);
      y0 = r - w;
    }
  }
  reducedY0 = y0;
  reducedY1 = r - y0 - w;
  return <i32>q;
}

function sinKern(x: f64, y: f64, iy: i32): f64 {
  const S1 = reinterpret<f64>(0xbfc5555555555549);
  const S2 = reinterpret<f64>(0x3f8111111110f8a6);
  const S3 = reinterpret<f64>(0xbf2a01a019c161d5);
  const S4 = reinterpret<f64>(0x3ec71de357b1fe7d);
  const S5 = reinterpret<f64>(0xbe5ae5e68a2b9ceb);
  const S6 = reinterpret<f64>(0x3de5d93a5acfd57c);
  const z = x * x;
  const w = z * z;
  const r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
  const v = z * x;
  if (!iy) return x + v * (S1 + z * r);
  return x - (z * (0.5 * y - v * r) - y - v * S1);
}

function cosKern(x: f64, y: f64): f64 {
  const C1 = reinterpret<f64>(0x3fa555555555554c);
  const C2 = reinterpret<f64>(0xbf56c16c16c15177);
  const C3 = reinterpret<f64>(0x3efa01a019cb1590);
  const C4 = reinterpret<f64>(0xbe927e4f809c52ad);
  const C5 = reinterpret<f64>(0x3e21ee9ebdb4b1c4);
  const C6 = reinterpret<f64>(0xbda8fae9be8838d4);
  const z = x * x;
  let w = z * z;
  const r = z * (C1 + z * (C2 + z * C3)) + w * w * (C4 + z * (C5 + z * C6));
  const hz = 0.5 * z;
  w = 1.0 - hz;
  return w + (1.0 - w - hz + (z * r - x * y));
}

const REDUCE_LIMIT: u32 = 0x413921fb; // |x| ~< 2^20·π/2

export function sin(x: f64): f64 {
  const ix = <u32>(reinterpret<u64>(x) >> 32) & 0x7fffffff;
  if (ix <= 0x3fe921fb) return ix < 0x3e500000 ? x : sinKern(x, 0.0, 0);
  if (ix >= REDUCE_LIMIT) return NaN;
  const n = rempio2(x, ix);
  const s = n & 1 ? cosKern(reducedY0, reducedY1) : sinKern(reducedY0, reducedY1, 1);
  return n & 2 ? -s : s;
}

export function cos(x: f64): f64 {
  const ix = <u32>(reinterpret<u64>(x) >> 32) & 0x7fffffff;
  if (ix <= 0x3fe921fb) return ix < 0x3e46a09e ? 1.0 : cosKern(x, 0.0);
  if (ix >= REDUCE_LIMIT) return NaN;
  const n = rempio2(x, ix);
  const c = n & 1 ? sinKern(reducedY0, reducedY1, 1) : cosKern(reducedY0, reducedY1);
  return (n + 1) & 2 ? -c : c;
}

function asinR(z: f64): f64 {
  const pS0 = reinterpret<f64>(0x3fc5555555555555);
  const pS1 = reinterpret<f64>(0xbfd4d61203eb6f7d);
  const pS2 = reinterpret<f64>(0x3fc9c1550e884455);
  const pS3 = reinterpret<f64>(0xbfa48228b5688f3b);
  const pS4 = reinterpret<f64>(0x3f49efe07501b288);
  const pS5 = reinterpret<f64>(0x3f023de10dfdf709);
  const qS1 = reinterpret<f64>(0xc0033a271c8a2d4b);
  const qS2 = reinterpret<f64>(0x40002ae59c598ac8);
  const qS3 = reinterpret<f64>(0xbfe6066c1b8d0159);
  const qS4 = reinterpret<f64>(0x3fb3b8c5b12e9282);
  const p = z * (pS0 + z * (pS1 + z * (pS2 + z * (pS3 + z * (pS4 + z * pS5)))));
  const q = 1.0 + z * (qS1 + z * (qS2 + z * (qS3 + z * qS4)));
  return p / q;
}

export function asin(x: f64): f64 {
  const pio2_hi = reinterpret<f64>(0x3ff921fb54442d18);
  const pio2_lo = reinterpret<f64>(0x3c91a62633145c07);
  const hx = <u32>(reinterpret<u64>(x) >> 32);
  const ix = hx & 0x7fffffff;
  if (ix >= 0x3ff00000) {
    const lx = <u32>reinterpret<u64>(x);
    if (((ix - 0x3ff00000) | lx) == 0) return x * pio2_hi;
    return NaN;
  }
  if (ix < 0x3fe00000) {
    if (ix < 0x3e500000 && ix >= 0x00100000) return x;
    return x + x * asinR(x * x);
  }
  const z = 0.5 - abs<f64>(x) * 0.5;
  const s = sqrt<f64>(z);
  const r = asinR(z);
  let y: f64;
  if (ix >= 0x3fef3333) {
    y = pio2_hi - (2 * (s + s * r) - pio2_lo);
  } else {
    const f = reinterpret<f64>(reinterpret<u64>(s) & 0xffffffff00000000);
    const c = (z - f * f) / (s + f);
    y = 0.5 * pio2_hi - (2 * s * r - (pio2_lo - 2 * c) - (0.5 * pio2_hi - 2 * f));
  }
  return <i32>hx < 0 ? -y : y;
}

export function log(x: f64): f64 {
  const ln2_hi = reinterpret<f64>(0x3fe62e42fee00000);
  const ln2_lo = reinterpret<f64>(0x3dea39ef35793c76);
  const Lg1 = reinterpret<f64>(0x3fe5555555555593);
  const Lg2 = reinterpret<f64>(0x3fd999999997fa04);
  const Lg3 = reinterpret<f64>(0x3fd2492494229359);
  const Lg4 = reinterpret<f64>(0x3fcc71c51d8e78af);
  const Lg5 = reinterpret<f64>(0x3fc7466496cb03de);
  const Lg6 = reinterpret<f64>(0x3fc39a09d078c69f);
  const Lg7 = reinterpret<f64>(0x3fc2f112df3e5244);
  const Ox1p54 = reinterpret<f64>(0x4350000000000000);

  let u = reinterpret<u64>(x);
  let hx = <u32>(u >> 32);
  let k: i32 = 0;
  if (hx >> 31 || hx < 0x00100000) {
    if (u << 1 == 0) return -Infinity;
    if (hx >> 31) return NaN;
    k -= 54;
    x *= Ox1p54;
    u = reinterpret<u64>(x);
    hx = <u32>(u >> 32);
  } else if (hx >= 0x7ff00000) {
    return x;
  } else if (hx == 0x3ff00000 && u << 32 == 0) {
    return 0;
  }
  hx += 0x3ff00000 - 0x3fe6a09e;
  k += (<i32>hx >> 20) - 0x3ff;
  hx = (hx & 0x000fffff) + 0x3fe6a09e;
  u = (<u64>hx << 32) | (u & 0xffffffff);
  x = reinterpret<f64>(u);
  const f = x - 1.0;
  const hfsq = 0.5 * f * f;
  const s = f / (2.0 + f);
  const z = s * s;
  const w = z * z;
  const t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
  const t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  const r = t2 + t1;
  const dk = <f64>k;
  return s * (hfsq + r) + dk * ln2_lo - hfsq + f + dk * ln2_hi;
}
