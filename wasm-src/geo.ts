// Reference scalar module for the example pack `packs/geo` (built by scripts/build-wasm.mjs).
// Everything here takes and returns i32/f32/f64 only: the v1 WASM contract. It has no imports
// (`--use abort=` drops AssemblyScript's abort import; a failed check is a trap), no linear memory
// (its math is table-free, see geo-math.ts, so a fresh instance per call is cheap) and no state
// that matters between calls — every call runs on a fresh instance.

import { asin, cos, log, sin } from './geo-math';

const EARTH_RADIUS_M: f64 = 6371008.8;
const DEG: f64 = Math.PI / 180.0;

/** Central angle (radians) between two points given in degrees: the haversine formula. */
export function haversineRad(lat1: f64, lon1: f64, lat2: f64, lon2: f64): f64 {
  const dLat = (lat2 - lat1) * DEG;
  const dLon = (lon2 - lon1) * DEG;
  const s1 = sin(dLat / 2.0);
  const s2 = sin(dLon / 2.0);
  const a = s1 * s1 + cos(lat1 * DEG) * cos(lat2 * DEG) * s2 * s2;
  return 2.0 * asin(sqrt<f64>(Math.min(1.0, a)));
}

/** Great-circle distance in metres between two points given in degrees. */
export function distanceMeters(lat1: f64, lon1: f64, lat2: f64, lon2: f64): f64 {
  return haversineRad(lat1, lon1, lat2, lon2) * EARTH_RADIUS_M;
}

/** Distance from point P to segment AB in the plane: the kernel of Douglas–Peucker simplification. */
export function segmentDistance(px: f64, py: f64, ax: f64, ay: f64, bx: f64, by: f64): f64 {
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t: f64 = 0.0;
  if (len2 > 0.0) t = Math.max(0.0, Math.min(1.0, ((px - ax) * dx + (py - ay) * dy) / len2));
  const qx = ax + t * dx - px;
  const qy = ay + t * dy - py;
  return sqrt<f64>(qx * qx + qy * qy);
}

/** Tolerance in degrees for a simplification at a given zoom level (one pixel of a 256-px tile). */
export function simplifyTolerance(zoom: i32): f64 {
  if (zoom < 0 || zoom > 30) unreachable();
  return 360.0 / (256.0 * <f64>(1 << zoom));
}

export function clamp(x: f64, lo: f64, hi: f64): f64 {
  return Math.max(lo, Math.min(hi, x));
}

/** Web-Mercator y (unit square) of a latitude: single precision is plenty for screen work. */
export function mercatorY(lat: f32): f32 {
  const l = <f32>clamp(<f64>lat, -85.05112878, 85.05112878) * <f32>DEG;
  return <f32>0.5 - <f32>(log((1.0 + sin(<f64>l)) / (1.0 - sin(<f64>l))) * 0.5 / (2.0 * Math.PI));
}

/** Index of the slippy-map tile column containing a longitude at a zoom level. */
export function tileX(lon: f64, zoom: i32): i32 {
  if (zoom < 0 || zoom > 30) unreachable();
  const n = <f64>(1 << zoom);
  const x = <i32>Math.floor(((lon + 180.0) / 360.0) * n);
  return x < 0 ? 0 : x >= <i32>n ? <i32>n - 1 : x;
}

/** A void export: traps unless the latitude is a real one, so callers can assert cheaply. */
export function assertLatitude(lat: f64): void {
  if (!(lat >= -90.0 && lat <= 90.0)) unreachable();
}
