import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Result } from '../../shared/protocol/result.ts';
import { readBody } from './request-body.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A real server whose handler reads the body with readBody and hands back what it got. */
async function reader(limit?: number): Promise<{ port: number; next: () => Promise<Result<Buffer>> }> {
  const results: ((result: Result<Buffer>) => void)[] = [];
  const pending: Promise<Result<Buffer>>[] = [];
  const push = () => pending.push(new Promise((resolve) => results.push(resolve)));
  push();
  server = createServer((req, res) => {
    void readBody(req, limit).then((result) => {
      results.shift()?.(result);
      push();
      if (!res.destroyed) res.end(result.ok ? 'ok' : result.code);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  return { port: (server.address() as AddressInfo).port, next: () => pending.shift()! };
}

function post(port: number, body: string, headers: Record<string, string | number>): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('readBody', () => {
  it('reads a body of declared length, an empty one, and a chunked one', async () => {
    const { port, next } = await reader();
    expect(await post(port, '{"a":1}', { 'Content-Length': 7 })).toBe('ok');
    expect((await next()).ok && 'read').toBe('read');
    await post(port, '', { 'Content-Length': 0 });
    const empty = await next();
    expect(empty.ok && empty.value.length).toBe(0);
    await post(port, '{"b":2}', { 'Transfer-Encoding': 'chunked' });
    const chunked = await next();
    expect(chunked.ok && chunked.value.toString()).toBe('{"b":2}');
  });

  it('answers invalid-request when the client goes away before a declared body is complete', async () => {
    const { port, next } = await reader();
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/', headers: { 'Content-Length': 100 } });
    req.on('error', () => undefined);
    req.write('{"partial":');
    await new Promise((resolve) => setTimeout(resolve, 20));
    req.destroy();
    expect(await next()).toEqual({ ok: false, code: 'invalid-request', message: 'The request body could not be read.' });
  });

  it('refuses a declared length over the limit without reading, and a chunked body growing past it', async () => {
    const { port, next } = await reader(8);
    expect(await post(port, '0123456789', { 'Content-Length': 10 })).toBe('request-too-large');
    expect(await next()).toEqual({ ok: false, code: 'request-too-large', message: 'The request body is larger than the 8 bytes this server accepts.' });
    expect(await post(port, '0123456789', { 'Transfer-Encoding': 'chunked' })).toBe('request-too-large');
    expect((await next()).ok).toBe(false);
  });
});
