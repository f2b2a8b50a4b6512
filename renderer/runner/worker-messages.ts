// The browser kernel worker speaks the kernel workers' shared protocol
// (shared/sandbox/hosting/kernel-worker-messages.ts); what is the page's own is the part of a DOM Worker
// the runner uses, so a test or another page can hand in its own.

export {
  FromKernelWorkerSchema,
  ToKernelWorkerSchema,
  type FromKernelWorker,
  type ToKernelWorker,
} from '../../shared/sandbox/hosting/kernel-worker-messages.ts';

/** What the page needs of a worker: the part of the DOM `Worker` the runner uses. */
export interface WorkerLike {
  postMessage(message: unknown): void;
  terminate(): void;
  onmessage: ((event: MessageEvent) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  /** A message from the worker that could not be deserialized (for example, nested too deeply). */
  onmessageerror?: ((event: MessageEvent) => void) | null;
}
