// The one refusal of a kernel host used after close(), for both adapters over the core (the app's
// Node sandbox pool and the browser's kernel host): a run asked of a closed host is a bug in its
// owner (a service that closed its pool must not start runs on it), so it is a thrown named error,
// the same one on either side, never a run result that looks like the guest's failure.

export class KernelHostClosedError extends Error {
  override readonly name = 'KernelHostClosedError';

  /** `host` names the adapter: "the sandbox pool", "the browser kernel host". */
  constructor(readonly host: string) {
    super(`${host} is closed; no run can start on it`);
  }
}
