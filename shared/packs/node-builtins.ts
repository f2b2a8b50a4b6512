// Names a Node program could import as builtins. Sandbox code has no Node APIs, so a pack that
// imports one of these (with or without the `node:` prefix, with or without a subpath) is refused
// at discovery with a clear reason instead of failing later at the loader. A static copy of
// `module.builtinModules` (Node 20/22) because shared/ cannot ask Node.

export const NODE_BUILTIN_MODULES: ReadonlySet<string> = new Set([
  '_http_agent', '_http_client', '_http_common', '_http_incoming', '_http_outgoing', '_http_server',
  '_stream_duplex', '_stream_passthrough', '_stream_readable', '_stream_transform', '_stream_wrap',
  '_stream_writable', '_tls_common', '_tls_wrap', 'assert', 'async_hooks', 'buffer', 'child_process',
  'cluster', 'console', 'constants', 'crypto', 'dgram', 'diagnostics_channel', 'dns', 'domain',
  'events', 'fs', 'http', 'http2', 'https', 'inspector', 'module', 'net', 'os', 'path', 'perf_hooks',
  'process', 'punycode', 'querystring', 'readline', 'repl', 'sea', 'sqlite', 'stream', 'string_decoder',
  'sys', 'test', 'timers', 'tls', 'trace_events', 'tty', 'url', 'util', 'v8', 'vm', 'wasi',
  'worker_threads', 'zlib',
]);

/** True for `node:anything` and for a builtin name or a subpath of one (`fs/promises`). */
export function isNodeBuiltinRequest(request: string): boolean {
  if (request.startsWith('node:')) return true;
  const head = request.split('/')[0] ?? request;
  return NODE_BUILTIN_MODULES.has(head);
}
