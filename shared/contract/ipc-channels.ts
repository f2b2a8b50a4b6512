// The two Electron IPC channel names. There are only two: one for every contract call (the method
// name travels inside, checked against the contract by the dispatcher) and one for events, so the
// preload stays a fixed, hand-listed object no matter how the contract grows.

export const IPC_INVOKE_CHANNEL = 'sandbox-packs:invoke';
export const IPC_EVENT_CHANNEL = 'sandbox-packs:event';

/** The object the preload exposes on `window.sandboxPacks`. */
export interface PreloadBridge {
  invoke(method: string, payload: unknown): Promise<unknown>;
  onEvent(listener: (event: unknown) => void): () => void;
}

export const PRELOAD_GLOBAL = 'sandboxPacks';
