// GET /api/sandbox-modules/:moduleId — a module's source for the browser runner, by OPAQUE id.
// The id's shape is checked first, then authorization and retrieval are one catalog call
// (`authorizeDelivery`), so there is no route-to-filesystem step that could drift from the check.
//
// Entitlement is the catalog's rule, not ours: a browser principal is refused (403 `forbidden`)
// the source of packs whose package.json says `"private": true`; everything else that is ready
// is delivered. Unknown ids are 404 `not-found`. Every answer is named by its digest: one asked
// for under a digest that is no longer current is 409 `stale-digest`, never the new source under
// an old name (deliverModule lists the headers).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DeliveryPrincipal, SandboxModuleCatalog } from '../../shared/protocol/catalog.ts';
import { DELIVERY_GRAPH_HEADER, DELIVERY_PARTS, type DeliveryPart } from '../../shared/protocol/delivery.ts';
import { fail } from '../../shared/protocol/result.ts';
import { BASE_HEADERS, sendFailure } from './responses.ts';

export const MODULE_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const DIGEST_PATTERN = /^[0-9a-f]{64}$/;

export type DeliveryCatalog = Pick<SandboxModuleCatalog, 'authorizeDelivery'>;

/**
 * The response body is the module's source (text/javascript, or application/wasm bytes) and:
 *   ETag: "<digest>"                        the module-graph digest (sha256 hex)
 *   X-Sandbox-Module-Digest: <digest>       the same, for clients that verify before evaluating
 *   X-Sandbox-Module-Dependencies: a,b,c    module ids this module imports (comma-separated; ids
 *                                           contain only [A-Za-z0-9_-], empty when none)
 *   X-Sandbox-Module-Graph: <json>          URI-encoded DeliveredModuleInfo (shared/protocol/
 *                                           delivery.ts): the module's graph sources, import map
 *                                           and WASM exports, so a browser can recompute the digest
 * `?part=wasm` answers a WASM entry's binary (application/wasm) under the same id and digest.
 * Caching is keyed by digest: addressed as `?digest=<current digest>` the answer is immutable;
 * without it the client must revalidate (If-None-Match → 304); with a digest that is no longer
 * current the answer is 409 `stale-digest`.
 */
export async function deliverModule(
  req: IncomingMessage,
  res: ServerResponse,
  catalog: DeliveryCatalog,
  rawId: string,
  query: URLSearchParams,
  principal: DeliveryPrincipal,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendFailure(res, fail('invalid-request', 'Modules are fetched with GET.'), 405);
  if (!MODULE_ID_PATTERN.test(rawId)) {
    return sendFailure(res, fail('invalid-request', 'moduleId: a module id is 1–128 letters, digits, "-" or "_"'));
  }
  const wanted = query.get('digest');
  if (wanted !== null && !DIGEST_PATTERN.test(wanted)) {
    return sendFailure(res, fail('invalid-request', 'digest: a digest is 64 lower-case hex characters (sha256)'));
  }
  const rawPart = query.get('part') ?? 'source';
  if (!(DELIVERY_PARTS as readonly string[]).includes(rawPart))
    return sendFailure(res, fail('invalid-request', `part: a module part is one of ${DELIVERY_PARTS.join(', ')}`));
  const delivery = await catalog.authorizeDelivery(rawId, principal, rawPart as DeliveryPart);
  if (!delivery.ok) {
    return sendFailure(res, fail(delivery.code, delivery.message), delivery.code === 'forbidden' ? 403 : 404);
  }
  if (wanted !== null && wanted !== delivery.digest) {
    return sendFailure(res, fail('stale-digest', `Module ${rawId} is now at digest ${delivery.digest}; the requested digest is no longer served.`));
  }
  const etag = `"${delivery.digest}"`;
  const headers: Record<string, string> = {
    ...BASE_HEADERS,
    ETag: etag,
    'X-Sandbox-Module-Digest': delivery.digest,
    'X-Sandbox-Module-Dependencies': delivery.dependencies.join(','),
    ...(delivery.graph ? { [DELIVERY_GRAPH_HEADER]: encodeURIComponent(JSON.stringify(delivery.graph)) } : {}),
    // private: the answer needed the session token; a shared cache must never keep it.
    'Cache-Control': wanted !== null ? 'private, max-age=31536000, immutable' : 'private, no-cache',
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const body = typeof delivery.body === 'string' ? Buffer.from(delivery.body, 'utf8') : Buffer.from(delivery.body);
  res.writeHead(200, {
    ...headers,
    'Content-Type': delivery.mediaType === 'text/javascript' ? 'text/javascript; charset=utf-8' : 'application/wasm',
    'Content-Length': String(body.length),
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}
