// One WASM pool worker. It is plain ESM on purpose — no TypeScript, no dependencies — so it starts
// the same under vitest, `node --import tsx`, plain node and a bundled app without a loader, and a
// replacement after a timeout is ready in tens of milliseconds (importing zod here alone would
// triple that). Its inbound messages come from our own pool and are checked by hand below; its
// replies are parsed with zod on the host side (shared/sandbox/wasm-worker-reply.ts), which is the
// boundary that matters: a worker runs pack code.
//
// Instance per call: every call instantiates the cached module with an empty import object,
// runs one export and drops the instance, so no global, memory or table state survives a call.

import { parentPort } from 'node:worker_threads';

const CACHE_MAX = 64;
/** digest → WebAssembly.Module (structured-cloned from the host once per worker). */
const modules = new Map();

function remember(digest, module) {
  modules.delete(digest);
  modules.set(digest, module);
  while (modules.size > CACHE_MAX) modules.delete(modules.keys().next().value);
}

function isCall(msg) {
  return (
    msg !== null &&
    typeof msg === 'object' &&
    msg.type === 'call' &&
    Number.isSafeInteger(msg.id) &&
    typeof msg.digest === 'string' &&
    typeof msg.exportName === 'string' &&
    Array.isArray(msg.args) &&
    msg.args.every((a) => typeof a === 'number') &&
    (msg.module === undefined || msg.module instanceof WebAssembly.Module)
  );
}

function errorMessage(error) {
  if (error instanceof Error) return error.message;
  return String(error);
}

parentPort.on('message', (msg) => {
  if (!isCall(msg)) {
    parentPort.postMessage({ type: 'result', id: typeof msg?.id === 'number' ? msg.id : -1, ok: false, code: 'internal', message: 'malformed call message', runMs: 0 });
    return;
  }
  if (msg.module) remember(msg.digest, msg.module);
  const module = modules.get(msg.digest);
  if (!module) {
    parentPort.postMessage({ type: 'missing', id: msg.id });
    return;
  }
  const start = performance.now();
  let reply;
  try {
    const instance = new WebAssembly.Instance(module, {});
    const fn = instance.exports[msg.exportName];
    if (typeof fn !== 'function') throw new TypeError(`export ${msg.exportName} is not a function`);
    const value = fn(...msg.args);
    reply = { type: 'result', id: msg.id, ok: true, value, runMs: performance.now() - start };
  } catch (error) {
    // RuntimeError: traps (unreachable, divide by zero, out of bounds). RangeError: the engine
    // ran out of stack or could not allocate the declared memory. Both are the module's doing.
    const trap = error instanceof WebAssembly.RuntimeError || error instanceof RangeError;
    reply = { type: 'result', id: msg.id, ok: false, code: trap ? 'wasm-trap' : 'internal', message: errorMessage(error), runMs: performance.now() - start };
  }
  parentPort.postMessage(reply);
});

parentPort.postMessage({ type: 'ready' });
