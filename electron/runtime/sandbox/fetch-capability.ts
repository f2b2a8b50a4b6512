// The `fetch` capability on the host side. A guest may reach only the hosts the node was granted,
// over http or https, and — unless the grant says otherwise — never a private, loopback or
// link-local address. The address check happens in the socket's own DNS lookup, so the address
// that is checked is the address that is connected to (no second resolution to race). Redirects
// are not followed: a 3xx comes back to the guest, which may fetch the new URL if it is allowed.
// A request belongs to its run: the run's abort signal (fired when the run ends, however it ends)
// destroys the socket, so nothing a run started outlives it.

import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';
import type { HostCallResult } from '../../../shared/protocol/run.ts';

export interface FetchGrant {
  /** Host names the guest may reach: exact names, or "*.example.com" for subdomains. */
  readonly hosts: readonly string[];
  /** Allow private, loopback and link-local addresses (off by default). */
  readonly allowPrivate?: boolean;
  /** Response body cap in bytes (default 8 MB). */
  readonly maxResponseBytes?: number;
  /** Per-request timeout in ms (default 15 s). */
  readonly timeoutMs?: number;
}

const PRIVATE = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(prefix, bits, 'ipv4');
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(prefix, bits, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return PRIVATE.check(mapped[1], 'ipv4');
    return PRIVATE.check(address, 'ipv6');
  }
  return true;
}

export function hostAllowed(hostname: string, hosts: readonly string[]): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return hosts.some((pattern) => {
    const p = pattern.toLowerCase();
    if (p.startsWith('*.')) return name.endsWith(p.slice(1)) && name.length > p.length - 1;
    return name === p;
  });
}

const FetchArgs = (args: readonly unknown[]) => {
  const [url, init] = args;
  if (typeof url !== 'string' || init === null || typeof init !== 'object') return undefined;
  const { method, headers, body } = init as { method?: unknown; headers?: unknown; body?: unknown };
  if (typeof method !== 'string' || !/^[A-Z]{1,16}$/i.test(method)) return undefined;
  const headerList: Record<string, string> = {};
  if (headers !== undefined) {
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) return undefined;
    for (const [k, v] of Object.entries(headers)) headerList[k] = String(v);
  }
  if (body !== undefined && !(body instanceof Uint8Array)) return undefined;
  return { url, method: method.toUpperCase(), headers: headerList, body };
};

/** What a fetch aborted by the end of its run answers (nobody reads it: the run is over). */
const ENDED: HostCallResult = { ok: false, code: 'fetch-failed', message: 'fetch: the run ended before the response arrived.' };

export async function fetchCapability(grant: FetchGrant, args: readonly unknown[], signal?: AbortSignal): Promise<HostCallResult> {
  if (signal?.aborted) return ENDED;
  const request = FetchArgs(args);
  if (!request) return { ok: false, code: 'invalid-data', message: 'fetch was called with arguments it cannot use: fetch(url, { method, headers, body }).' };
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, code: 'fetch-failed', message: `fetch: ${JSON.stringify(request.url)} is not a valid URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, code: 'capability-denied', message: `fetch: only http and https URLs are allowed, not ${url.protocol}.` };
  }
  if (!hostAllowed(url.hostname, grant.hosts)) {
    return {
      ok: false,
      code: 'capability-denied',
      message: `fetch: host ${url.hostname} is not on this node's fetch allowlist (${grant.hosts.join(', ') || 'empty'}).`,
    };
  }
  const maxBytes = grant.maxResponseBytes ?? 8 * 1024 * 1024;
  const timeoutMs = grant.timeoutMs ?? 15_000;
  let refused: string | undefined;
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 4);
      const list = addresses as dns.LookupAddress[];
      const usable = grant.allowPrivate ? list : list.filter((a) => !isPrivateAddress(a.address));
      const first = usable[0];
      if (!first) {
        refused = `fetch: ${hostname} resolves to a private or loopback address (${list.map((a) => a.address).join(', ')}), which this node may not reach.`;
        return callback(Object.assign(new Error(refused), { code: 'EACCES' }), '', 4);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [first]);
      callback(null, first.address, first.family);
    });
  };
  const literal = net.isIP(url.hostname.replace(/^\[|\]$/g, ''));
  if (literal && !grant.allowPrivate && isPrivateAddress(url.hostname.replace(/^\[|\]$/g, ''))) {
    return { ok: false, code: 'capability-denied', message: `fetch: ${url.hostname} is a private or loopback address, which this node may not reach.` };
  }

  if (signal?.aborted) return ENDED;
  return new Promise<HostCallResult>((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, { method: request.method, headers: request.headers, lookup, timeout: timeoutMs, ...(signal ? { signal } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy();
          resolve({ ok: false, code: 'response-too-large', message: `fetch: the response from ${url.host} is larger than ${maxBytes} bytes.` });
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
        const body = Buffer.concat(chunks);
        resolve({
          ok: true,
          value: {
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            url: url.href,
            headers,
            body: new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
          },
        });
      });
      res.on('error', (error) => resolve(signal?.aborted ? ENDED : { ok: false, code: 'fetch-failed', message: `fetch: ${error.message}` }));
      // A socket destroyed mid-body (an abort) may close the response without 'end' or 'error'.
      res.on('close', () => {
        if (!res.complete)
          resolve(
            signal?.aborted
              ? ENDED
              : { ok: false, code: 'fetch-failed', message: `fetch: the connection to ${url.host} closed before the response was complete.` },
          );
      });
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ ok: false, code: 'fetch-failed', message: `fetch: ${url.host} did not answer within ${timeoutMs} ms.` });
    });
    req.on('error', (error) => {
      if (signal?.aborted) resolve(ENDED);
      else if (refused) resolve({ ok: false, code: 'capability-denied', message: refused });
      else resolve({ ok: false, code: 'fetch-failed', message: `fetch: ${url.host} could not be reached (${error.message}).` });
    });
    if (request.body) req.write(request.body);
    req.end();
  });
}
