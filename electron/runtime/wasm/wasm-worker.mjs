// One WASM pool worker. It is plain ESM on purpose — no TypeScript, no dependencies — so it starts
// the same under vitest, `node --import tsx`, plain node and a bundled app without a loader, and a
// replacement after a timeout is ready in tens of milliseconds (importing zod here alone would
// triple that). Its inbound messages come from our own pool and are checked by hand below; its
// replies are parsed with zod on the host side (shared/sandbox/wasm/wasm-worker-reply.ts), which is the
// boundary that matters: a worker runs pack code.
//
// Instance per call: every call instantiates the cached module, runs one export and drops the
// instance, so no global, memory or table state survives a call. A module the host rewrote to
// import its memory (shared/packs/wasm-memory-import.ts) gets a kept memory zeroed in full, which
// is what a fresh memory of its own would hold (shared/sandbox/wasm/instance-supply.mjs).

import { readlinkSync } from 'node:fs';
import { MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
// The canonical ABI's lowering for typed exports, the browser worker's too (no imports of its own).
import { failureCode, invokeExport, isCallAbi, isCallArgs } from '../../../shared/sandbox/wasm/canonical-abi.mjs';
import { InstanceSupply, isMemoryShape } from '../../../shared/sandbox/wasm/instance-supply.mjs';

const CACHE_MAX = 64;
/** Lane mode: the shared signal's layout (see WasmLanes in wasm-plan.ts) and the spin before a wait. */
const REPLIES = 0;
const HOST_SLEEPING = 1;
/**
 * The longest an idle lane spins before it sleeps. A guest's loop calls again within ~0.1 ms, and
 * waking a sleeping thread costs the caller a futex wake-up, which in a VM is an expensive
 * cross-CPU interrupt (measured: ~10 µs more per call); so a lane stays awake across a burst of
 * calls. It spins only while calls come that close together (`spinAfter`): a run that makes one
 * call, the common case, would otherwise leave every call followed by this much wasted CPU, which
 * a burst of such runs on 2 cores takes from the runs themselves (bench load: the lanes used a
 * quarter of the serving process's CPU, most of it spinning).
 */
const SPIN_MS = 0.5;

/** How long to spin after a reply, given how long the lane waited for its latest call. */
function spinAfter(gapMs) {
  return gapMs <= SPIN_MS ? Math.min(SPIN_MS, 2 * gapMs + 0.02) : 0;
}
/** digest → { module, memory }: the compiled module (structured-cloned from the host once per worker) and its memory's shape when it imports one. */
const modules = new Map();
const supply = new InstanceSupply();

function remember(digest, module, memory) {
  modules.delete(digest);
  modules.set(digest, { module, memory });
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
    isCallArgs(msg.args) &&
    (msg.abi === undefined || isCallAbi(msg.abi)) &&
    (msg.module === undefined || msg.module instanceof WebAssembly.Module) &&
    (msg.memory === undefined || (msg.module !== undefined && isMemoryShape(msg.memory))) &&
    (msg.spare === undefined || msg.spare === true)
  );
}

function errorMessage(error) {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * A fresh, never-used instance of the module the last call ran, when that call said the module
 * instantiates quietly (no start function, small allocation): the next call of the same module
 * takes it instead of instantiating on its path. It serves one call at most, so no state survives
 * a call either way.
 */
let spare;

function prepareSpare(msg) {
  spare = undefined;
  if (msg === null || typeof msg !== 'object' || msg.spare !== true) return;
  const known = modules.get(msg.digest);
  if (!known) return;
  try {
    spare = { digest: msg.digest, ...supply.instantiate(msg.digest, known.module, known.memory) };
  } catch {
    // The call itself will instantiate and report the same failure.
  }
}

/** One inbound message → its reply. */
function handle(msg) {
  if (!isCall(msg)) {
    return { type: 'result', id: typeof msg?.id === 'number' ? msg.id : -1, ok: false, code: 'internal', message: 'malformed call message', runMs: 0 };
  }
  if (msg.module) remember(msg.digest, msg.module, msg.memory);
  const known = modules.get(msg.digest);
  if (!known) return { type: 'missing', id: msg.id };
  const start = performance.now();
  let memory;
  try {
    const ready = spare !== undefined && spare.digest === msg.digest ? spare : undefined;
    spare = undefined;
    const made = ready ?? supply.instantiate(msg.digest, known.module, known.memory);
    memory = made.memory;
    const value = invokeExport(made.instance, msg.exportName, msg.args, msg.abi);
    return { type: 'result', id: msg.id, ok: true, value, runMs: performance.now() - start };
  } catch (error) {
    // Traps, ABI violations and an over-long result are the module's doing (failureCode says which).
    return { type: 'result', id: msg.id, ok: false, code: failureCode(error), message: errorMessage(error), runMs: performance.now() - start };
  } finally {
    supply.release(msg.digest, known.memory, memory);
  }
}

/** A bytes result's buffer is the reply's own copy (canonical-abi.mjs slices it): move it, do not copy it again. */
function transferOf(message) {
  return message.value instanceof Uint8Array ? [message.value.buffer] : [];
}

/**
 * This thread's kernel id, where the system names it (Linux: /proc/thread-self), so the sandbox
 * worker can lower the priority of a lane whose call spins (see WasmLanes); elsewhere nothing.
 */
function threadId() {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isSafeInteger(tid) && tid > 0 ? { tid } : {};
  } catch {
    return {};
  }
}

/** Lane mode's start-up data, checked by hand like every inbound message (see wasm-plan.ts). */
function isLane(lane) {
  return (
    lane !== null &&
    typeof lane === 'object' &&
    lane.port instanceof MessagePort &&
    lane.signal instanceof SharedArrayBuffer &&
    Number.isSafeInteger(lane.slot) &&
    lane.slot >= 1 &&
    (lane.slot * 2 + 1) * Int32Array.BYTES_PER_ELEMENT < lane.signal.byteLength
  );
}

const lane = workerData && typeof workerData === 'object' && workerData.lane !== undefined ? workerData.lane : undefined;
if (lane !== undefined && !isLane(lane)) throw new TypeError('wasm-worker: malformed lane start-up data');
if (lane) {
  // Lane mode (a sandbox worker's own lane, see wasm-plan.ts): messages travel on `lane.port`, and
  // each side also bumps a counter in shared memory, so the other can wait on it with Atomics
  // instead of an event-loop turn. `signal[2 * slot]` counts calls posted to this lane and
  // `signal[2 * slot + 1]` says it sleeps; `signal[0]` counts replies from every lane of the
  // sandbox worker and `signal[1]` says that worker sleeps. This thread has nothing else to do, so
  // it blocks between calls; terminate() still stops it, mid-wait or mid-call.
  const { port, slot } = lane;
  const signal = new Int32Array(lane.signal);
  const calls = slot * 2,
    sleeping = slot * 2 + 1;
  const reply = (message) => {
    port.postMessage(message, transferOf(message));
    Atomics.add(signal, REPLIES, 1);
    // A wake-up through the futex is the expensive part of a round trip here (measured); skip it
    // while the host is spinning, which it says through its flag (see WasmLanes.block).
    if (Atomics.load(signal, HOST_SLEEPING) === 1) Atomics.notify(signal, REPLIES);
  };
  let seen = Atomics.load(signal, calls);
  reply({ type: 'ready', ...threadId() });
  let spinMs = SPIN_MS;
  for (;;) {
    // Calls come in bursts (a guest's loop): spin a little before sleeping on the futex. The flag
    // is set before the wait re-checks the counter, so a call posted meanwhile is never missed.
    const idleFrom = performance.now();
    const until = idleFrom + spinMs;
    for (let i = 1; Atomics.load(signal, calls) === seen; i++) if ((i & 255) === 0 && performance.now() > until) break;
    if (Atomics.load(signal, calls) === seen) {
      Atomics.store(signal, sleeping, 1);
      Atomics.wait(signal, calls, seen);
      Atomics.store(signal, sleeping, 0);
    }
    spinMs = spinAfter(performance.now() - idleFrom);
    seen = Atomics.load(signal, calls);
    let last;
    for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
      last = next.message;
      reply(handle(last));
    }
    if (last !== undefined) prepareSpare(last);
  }
} else {
  parentPort.on('message', (msg) => {
    const answer = handle(msg);
    parentPort.postMessage(answer, transferOf(answer));
    prepareSpare(msg);
  });
  parentPort.postMessage({ type: 'ready' });
}
