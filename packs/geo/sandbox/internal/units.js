// Internal helper of @nodetool-ai/sandbox-geo: constants and conversions shared by the public
// entry. Listed under "internal", so guest code cannot import it directly.

export const EARTH_RADIUS_M = 6371008.8;

export function toRad(deg) {
  return (deg * Math.PI) / 180;
}

export function toDeg(rad) {
  return (rad * 180) / Math.PI;
}

/** Accepts [lat, lon] or { lat, lon } and returns { lat, lon } with finite numbers, or throws. */
export function point(p, label) {
  const lat = Array.isArray(p) ? p[0] : p && p.lat;
  const lon = Array.isArray(p) ? p[1] : p && p.lon;
  if (typeof lat !== 'number' || typeof lon !== 'number' || !Number.isFinite(lat) || !Number.isFinite(lon)) {
    throw new TypeError(`${label} must be [lat, lon] or { lat, lon } with finite numbers`);
  }
  if (lat < -90 || lat > 90) throw new RangeError(`${label} latitude ${lat} is outside -90..90`);
  return { lat, lon };
}
