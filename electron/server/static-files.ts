// Serves the built renderer (the Vite output) and nothing else. A URL path is never joined onto
// the filesystem as-is: it is decoded once, refused if it carries "..", backslashes, NUL or a
// hidden segment, and the resolved real path must still be inside the build directory. Pages get
// a strict Content-Security-Policy: our own scripts and styles only, no inline code, no framing.

import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { BASE_HEADERS } from './responses.ts';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/**
 * The browser runner's worker scripts (Vite names them `assets/<name>-worker-<hash>.js`) compile
 * WebAssembly: quickjs-ng and the packs' WASM. A dedicated worker takes its policy from its own
 * script's response, so only these get 'wasm-unsafe-eval' (WebAssembly compilation, not JS eval);
 * the page keeps the policy above and compiles nothing.
 */
export const WORKER_CONTENT_SECURITY_POLICY = ["default-src 'none'", "script-src 'self' 'wasm-unsafe-eval'", "connect-src 'self'"].join('; ');
export const WORKER_SCRIPT_PATTERN = /^assets\/[a-z0-9-]*-worker-[A-Za-z0-9_-]+\.js$/;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.wasm': 'application/wasm',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
  res.end(text);
}

/** The path inside the build directory a URL path names, or undefined when it is not a plain file name. */
export function staticRelativePath(urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded === '/' || decoded === '') return 'index.html';
  if (!decoded.startsWith('/') || decoded.includes('\\') || decoded.includes('\0')) return undefined;
  const segments = decoded.slice(1).split('/');
  if (segments.some((segment) => segment === '' || segment.startsWith('.'))) return undefined;
  return segments.join('/');
}

export async function serveStatic(req: IncomingMessage, res: ServerResponse, root: string | undefined, urlPath: string): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method not allowed.');
  if (root === undefined) return plain(res, 503, 'The app page is not built. Run `npm run web` (it builds the renderer first).');
  const relative = staticRelativePath(urlPath);
  if (relative === undefined) return plain(res, 404, 'Not found.');
  let file: string;
  let realRoot: string;
  try {
    realRoot = await realpath(root);
    file = await realpath(path.join(realRoot, relative));
  } catch {
    return plain(res, 404, 'Not found.');
  }
  if (!file.startsWith(realRoot + path.sep)) return plain(res, 404, 'Not found.');
  const info = await stat(file);
  if (!info.isFile()) return plain(res, 404, 'Not found.');
  const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
  res.writeHead(200, {
    ...BASE_HEADERS,
    'Content-Type': type,
    'Content-Length': String(info.size),
    'Content-Security-Policy': WORKER_SCRIPT_PATTERN.test(relative) ? WORKER_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY,
    // Vite's hashed assets never change under one name; the page itself must be revalidated.
    'Cache-Control': relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      res.on('close', resolve);
      stream.pipe(res);
    });
  } catch {
    res.destroy();
  } finally {
    stream.destroy();
  }
}
