// Public entry of @nodetool-ai/sandbox-geo. Plain JS for what is cheap to do in the guest
// (haversine, bearings, simplification); the WASM sibling for scalar math that is worth the
// bridge. WASM calls are async and budgeted (256 per run), so nothing here calls WASM in a loop.

import { EARTH_RADIUS_M, point, toDeg, toRad } from './internal/units.js';
import { distanceMeters, simplifyTolerance } from '@nodetool-ai/sandbox-geo/simplify-wasm';

/** Great-circle distance in metres (spherical Earth, mean radius). */
export function haversine(a, b) {
  const p = point(a, 'a');
  const q = point(b, 'b');
  const dLat = toRad(q.lat - p.lat);
  const dLon = toRad(q.lon - p.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRad(p.lat)) * Math.cos(toRad(q.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** Initial bearing from a to b in degrees clockwise from north, 0..360. */
export function bearing(a, b) {
  const p = point(a, 'a');
  const q = point(b, 'b');
  const y = Math.sin(toRad(q.lon - p.lon)) * Math.cos(toRad(q.lat));
  const x = Math.cos(toRad(p.lat)) * Math.sin(toRad(q.lat)) - Math.sin(toRad(p.lat)) * Math.cos(toRad(q.lat)) * Math.cos(toRad(q.lon - p.lon));
  return (toDeg(Math.atan2(y, x)) + 360) % 360;
}

/** The same distance computed by the WASM module: one bridge call. */
export async function distanceWasm(a, b) {
  const p = point(a, 'a');
  const q = point(b, 'b');
  return distanceMeters(p.lat, p.lon, q.lat, q.lon);
}

function segmentDistance(p, a, b) {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len2)) : 0;
  return Math.hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
}

/** Douglas–Peucker simplification of [x, y] points with a tolerance in the points' units. */
export function simplify(points, tolerance) {
  if (!Array.isArray(points) || points.length < 3) return Array.isArray(points) ? points.slice() : [];
  const keep = new Array(points.length).fill(false);
  keep[0] = keep[points.length - 1] = true;
  const stack = [[0, points.length - 1]];
  while (stack.length) {
    const [first, last] = stack.pop();
    let index = -1;
    let max = tolerance;
    for (let i = first + 1; i < last; i++) {
      const d = segmentDistance(points[i], points[first], points[last]);
      if (d > max) {
        index = i;
        max = d;
      }
    }
    if (index >= 0) {
      keep[index] = true;
      stack.push([first, index], [index, last]);
    }
  }
  return points.filter((_, i) => keep[i]);
}

/** Simplify [lon, lat] points for display at a web-map zoom level (one WASM call for the tolerance). */
export async function simplifyForZoom(points, zoom) {
  return simplify(points, await simplifyTolerance(zoom));
}
