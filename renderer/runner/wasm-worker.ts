// One browser WASM pool worker (a module Web Worker), the twin of electron/runtime/wasm/
// wasm-worker.mjs: it compiles the (already validated) bytes it is sent — the page itself compiles
// no WebAssembly, so its CSP needs no 'wasm-unsafe-eval' — keeps compiled modules by digest, and for every call instantiates a fresh
// instance, runs one export and drops the instance, so no memory, global or table state survives
// a call. A module the page rewrote to import its memory gets a kept memory zeroed in full
// (shared/sandbox/wasm/instance-supply.mjs, the Node lane's too). A runaway export is stopped by the pool terminating
// this worker. It has no imports, so a replacement starts fast.

import { failureCode, invokeExport, isCallAbi, isCallArgs, type CallAbi, type CallArg } from '../../shared/sandbox/wasm/canonical-abi.mjs';
import { InstanceSupply, isMemoryShape, type MemoryShape } from '../../shared/sandbox/wasm/instance-supply.mjs';

const CACHE_MAX = 64;
/** digest → the compiling module and, when it imports its memory, that memory's limits. */
const modules = new Map<string, { compiling: Promise<WebAssembly.Module>; memory: MemoryShape | undefined }>();
const supply = new InstanceSupply();
const scope = self as unknown as { postMessage(message: unknown, transfer?: Transferable[]): void; onmessage: ((event: MessageEvent) => void) | null };

interface CallMessage {
  readonly type: 'call';
  readonly id: number;
  readonly digest: string;
  readonly exportName: string;
  readonly args: CallArg[];
  readonly abi?: CallAbi;
  readonly bytes?: ArrayBuffer;
  readonly memory?: MemoryShape;
}

function isCall(msg: unknown): msg is CallMessage {
  const m = msg as Partial<CallMessage> | null;
  return (
    m !== null &&
    typeof m === 'object' &&
    m.type === 'call' &&
    Number.isSafeInteger(m.id) &&
    typeof m.digest === 'string' &&
    typeof m.exportName === 'string' &&
    isCallArgs(m.args) &&
    (m.abi === undefined || isCallAbi(m.abi)) &&
    (m.bytes === undefined || m.bytes instanceof ArrayBuffer) &&
    (m.memory === undefined || (m.bytes !== undefined && isMemoryShape(m.memory)))
  );
}

scope.onmessage = async (event: MessageEvent) => {
  const msg: unknown = event.data;
  if (!isCall(msg)) {
    const id = (msg as { id?: unknown } | null)?.id;
    scope.postMessage({ type: 'result', id: typeof id === 'number' ? id : -1, ok: false, code: 'internal', message: 'malformed call message', runMs: 0 });
    return;
  }
  if (msg.bytes) {
    modules.delete(msg.digest);
    modules.set(msg.digest, { compiling: WebAssembly.compile(msg.bytes), memory: msg.memory });
    while (modules.size > CACHE_MAX) modules.delete(modules.keys().next().value as string);
  }
  const known = modules.get(msg.digest);
  if (!known) {
    scope.postMessage({ type: 'missing', id: msg.id });
    return;
  }
  let module: WebAssembly.Module;
  try {
    module = await known.compiling;
  } catch (error) {
    modules.delete(msg.digest);
    scope.postMessage({
      type: 'result',
      id: msg.id,
      ok: false,
      code: 'internal',
      message: `the engine could not compile the module: ${error instanceof Error ? error.message : String(error)}`,
      runMs: 0,
    });
    return;
  }
  // Compilation is not charged to the call, as on Node (where the host compiles).
  const start = performance.now();
  // From here to the reply nothing awaits, so no other call can take this memory meanwhile.
  let memory: WebAssembly.Memory | undefined;
  try {
    const made = supply.instantiate(msg.digest, module, known.memory);
    memory = made.memory;
    const value = invokeExport(made.instance, msg.exportName, msg.args, msg.abi);
    // A bytes result is the reply's own copy: move its buffer rather than copy it again.
    scope.postMessage({ type: 'result', id: msg.id, ok: true, value, runMs: performance.now() - start }, value instanceof Uint8Array ? [value.buffer] : []);
  } catch (error) {
    // Traps, ABI violations and an over-long result are the module's doing (failureCode says which).
    scope.postMessage({
      type: 'result',
      id: msg.id,
      ok: false,
      code: failureCode(error),
      message: error instanceof Error ? error.message : String(error),
      runMs: performance.now() - start,
    });
  } finally {
    supply.release(msg.digest, known.memory, memory);
  }
};

scope.postMessage({ type: 'ready' });
