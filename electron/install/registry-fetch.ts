// Every GET the installer and search make to a registry (search, published manifests, packuments,
// a remote registry index, tarballs refetched for integrity) goes through here, so each has a
// byte cap and a deadline. A registry is someone else's server: `response.text()` would buffer
// whatever it sends (a 120 MB search answer was read whole, 513 MB RSS) and a server that
// trickles bytes would hold the request forever.
//
// Invariants: the body is read as a stream with a byte counter; a declared Content-Length over
// the cap is refused before the body is read, and an undeclared one is cut as soon as the count
// passes the cap (the reader cancelled, which closes the socket). One deadline covers connecting,
// the head and the whole body. Expected failures come back tagged (`CappedFailure`), never thrown.

import { formatBytes } from '../../shared/protocol/limits.ts';

/** What went wrong; callers turn it into their own sentence. */
export type CappedFailure =
  | { readonly ok: false; readonly kind: 'status'; readonly status: number }
  | { readonly ok: false; readonly kind: 'too-large'; readonly maxBytes: number }
  | { readonly ok: false; readonly kind: 'timeout'; readonly timeoutMs: number }
  | { readonly ok: false; readonly kind: 'unreachable'; readonly detail: string };

export interface CappedOptions {
  /** Bytes of body accepted; one more and the read stops. */
  readonly maxBytes: number;
  /** From the request's start to the body's last byte. */
  readonly timeoutMs: number;
  readonly headers?: Record<string, string>;
  /** 'error' by default: a registry answer that redirects is not followed unless asked. */
  readonly redirect?: RequestRedirect;
}

/**
 * GET `url` and hand each body chunk to `onChunk` as it arrives (nothing is kept here), stopping at
 * the cap or the deadline. A non-2xx answer is a `status` failure, its body not read.
 */
export async function streamCapped(
  url: string,
  options: CappedOptions,
  onChunk: (chunk: Uint8Array) => void,
): Promise<{ readonly ok: true; readonly status: number; readonly size: number } | CappedFailure> {
  const timeout: CappedFailure = { ok: false, kind: 'timeout', timeoutMs: options.timeoutMs };
  const controller = new AbortController();
  let expiredAt = false;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let timer: NodeJS.Timeout | undefined;
  // The deadline does not rely on the abort signal alone: Node 20's fetch (undici) follows the
  // caller's signal through a WeakRef to its internal Request's controller, so once GC collects
  // that Request an abort no longer reaches the body. A read pending on a trickling body was seen
  // to outlive its abort until the server hung up (after a large answer had made garbage). So
  // every await below races the deadline, and the deadline cancels the reader itself, which
  // closes the socket.
  const expired = new Promise<typeof timeout>((resolve) => {
    timer = setTimeout(() => {
      expiredAt = true;
      resolve(timeout);
      controller.abort();
      reader?.cancel().catch(() => {});
    }, options.timeoutMs);
  });
  try {
    const fetching = fetch(url, { headers: options.headers ?? {}, redirect: options.redirect ?? 'error', signal: controller.signal });
    const response = await Promise.race([fetching, expired]);
    if (!(response instanceof Response)) {
      // A head that comes after the deadline is not read.
      fetching
        .then(
          (late) => late.body?.cancel(),
          () => {},
        )
        .catch(() => {});
      return response;
    }
    // Taken at once, so that every way out below cancels what was not read.
    reader = response.body?.getReader();
    if (!response.ok) return { ok: false, kind: 'status', status: response.status };
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > options.maxBytes) return { ok: false, kind: 'too-large', maxBytes: options.maxBytes };
    let size = 0;
    while (reader) {
      const next = await Promise.race([reader.read(), expired]);
      // A read the deadline's cancel ended reads as done; it is still the deadline.
      if ('kind' in next || expiredAt) return timeout;
      if (next.done) break;
      size += next.value.byteLength;
      if (size > options.maxBytes) return { ok: false, kind: 'too-large', maxBytes: options.maxBytes };
      onChunk(next.value);
    }
    reader = undefined;
    return { ok: true, status: response.status, size };
  } catch (error) {
    if (expiredAt) return timeout;
    const e = error as Error & { cause?: { code?: string; message?: string } };
    return { ok: false, kind: 'unreachable', detail: (e.cause?.code ?? e.cause?.message ?? e.message).slice(0, 200) };
  } finally {
    clearTimeout(timer);
    // Whatever stopped the read early (cap, status, deadline), the rest of the body is not wanted:
    // cancelling it closes the connection instead of leaving undici to drain or hold it.
    reader?.cancel().catch(() => {});
    controller.abort();
  }
}

/** GET `url` whole, within the cap and the deadline; the body as bytes. */
export async function fetchCapped(
  url: string,
  options: CappedOptions,
): Promise<{ readonly ok: true; readonly status: number; readonly bytes: Uint8Array } | CappedFailure> {
  const chunks: Uint8Array[] = [];
  const got = await streamCapped(url, options, (chunk) => chunks.push(chunk));
  if (!got.ok) return got;
  const bytes = new Uint8Array(got.size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, status: got.status, bytes };
}

/** The body as text, the way `response.text()` decodes it (UTF-8, a leading BOM dropped). */
export function bodyText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/** The failure as a phrase for a sentence: "HTTP 404", "the answer is larger than the 5 MB allowed", … */
export function failurePhrase(failure: CappedFailure): string {
  switch (failure.kind) {
    case 'status':
      return `HTTP ${failure.status}`;
    case 'too-large':
      return `the answer is larger than the ${formatBytes(failure.maxBytes)} allowed`;
    case 'timeout':
      return `no complete answer within ${failure.timeoutMs / 1000} s`;
    case 'unreachable':
      return failure.detail;
  }
}
