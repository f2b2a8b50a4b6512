// fetch against a real local HTTP server: loopback is exactly what the private-range rule must
// refuse by default, so the same server proves both the refusal and the explicit allowance.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchCapability, hostAllowed, isPrivateAddress } from './fetch-capability.ts';

let server: http.Server;
let port = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/big') {
      res.end(Buffer.alloc(4096, 97));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('X-Echo-Method', req.method ?? '');
      res.end(`echo:${Buffer.concat(chunks).toString('utf8')}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('fetch capability', () => {
  it('refuses hosts that are not on the allowlist', async () => {
    expect(await fetchCapability({ hosts: ['example.com'] }, ['https://evil.test/x', { method: 'GET', headers: {} }])).toEqual({
      ok: false,
      code: 'capability-denied',
      message: "fetch: host evil.test is not on this node's fetch allowlist (example.com).",
    });
  });

  it('refuses schemes other than http and https', async () => {
    expect(await fetchCapability({ hosts: ['*'] }, ['file:///etc/passwd', { method: 'GET', headers: {} }])).toMatchObject({
      ok: false,
      code: 'capability-denied',
      message: 'fetch: only http and https URLs are allowed, not file:.',
    });
  });

  it('refuses a literal loopback address by default', async () => {
    expect(await fetchCapability({ hosts: ['127.0.0.1'] }, [`http://127.0.0.1:${port}/`, { method: 'GET', headers: {} }])).toEqual({
      ok: false,
      code: 'capability-denied',
      message: 'fetch: 127.0.0.1 is a private or loopback address, which this node may not reach.',
    });
  });

  it('refuses an allowed name that resolves to loopback (checked at connect time)', async () => {
    const result = await fetchCapability({ hosts: ['localhost'] }, [`http://localhost:${port}/`, { method: 'GET', headers: {} }]);
    expect(result).toMatchObject({ ok: false, code: 'capability-denied' });
    if (!result.ok) expect(result.message).toMatch(/^fetch: localhost resolves to a private or loopback address \(.*\), which this node may not reach\.$/);
  });

  it('reaches a private address when the grant explicitly allows it, with method, body and headers', async () => {
    const result = await fetchCapability({ hosts: ['localhost'], allowPrivate: true }, [
      `http://localhost:${port}/echo`,
      { method: 'POST', headers: { 'content-type': 'text/plain' }, body: new TextEncoder().encode('hi') },
    ]);
    expect(result).toMatchObject({ ok: true, value: { status: 200, headers: { 'x-echo-method': 'POST' } } });
    if (result.ok) expect(new TextDecoder().decode((result.value as { body: Uint8Array }).body)).toBe('echo:hi');
  });

  it('caps the response size', async () => {
    expect(
      await fetchCapability({ hosts: ['127.0.0.1'], allowPrivate: true, maxResponseBytes: 1000 }, [
        `http://127.0.0.1:${port}/big`,
        { method: 'GET', headers: {} },
      ]),
    ).toEqual({
      ok: false,
      code: 'response-too-large',
      message: `fetch: the response from 127.0.0.1:${port} is larger than 1000 bytes.`,
    });
  });

  it('classifies addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0'])
      expect(isPrivateAddress(a)).toBe(true);
    for (const a of ['93.184.216.34', '2606:2800:220:1::1', '8.8.8.8']) expect(isPrivateAddress(a)).toBe(false);
  });

  it('matches allowlist patterns exactly or by subdomain', () => {
    expect(hostAllowed('api.example.com', ['*.example.com'])).toBe(true);
    expect(hostAllowed('example.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('evilexample.com', ['*.example.com'])).toBe(false);
    expect(hostAllowed('Example.COM', ['example.com'])).toBe(true);
  });
});
