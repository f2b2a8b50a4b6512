// Host misuse of a sandbox is a bug in the caller, so it throws a named error from here (as
// quickjs-emscripten-core's errors.ts throws `QuickJSUseAfterFree`); what a guest does is never
// thrown, it is a tagged run result. Each error is raised before the misuse touches the engine, so
// a sandbox that refused a use is in the state it was in.

/** Every misuse of a sandbox's lifecycle (sandbox.ts); the subclasses name which. */
export class SandboxMisuse extends Error {
  override name = 'SandboxMisuse';
}

/** The sandbox was freed (`dispose`), or retired whole after its engine was unwound mid-call. */
export class SandboxUseAfterDispose extends SandboxMisuse {
  override name = 'SandboxUseAfterDispose';
}

/** A sandbox serves one run (or one image evaluation) until its memory is restored and it is rewound. */
export class SandboxAlreadyUsed extends SandboxMisuse {
  override name = 'SandboxAlreadyUsed';
}

/** Only a sandbox whose run ended cleanly (`endRun`) can be rewound for another run. */
export class SandboxNotRewindable extends SandboxMisuse {
  override name = 'SandboxNotRewindable';
}

/** The sandbox holds an evaluated module set (module-image.ts) that is not the run's own. */
export class SandboxImageMismatch extends SandboxMisuse {
  override name = 'SandboxImageMismatch';
}

/** The run has WASM modules and the sandbox's prelude was made without the WASM bridge. */
export class SandboxNeedsWasm extends SandboxMisuse {
  override name = 'SandboxNeedsWasm';
}

/**
 * Not a misuse: the engine's Math.random state could not be found in its memory, so its sandboxes
 * cannot be restored between runs (memory-snapshot.ts). The sandbox supply then refuses to start.
 */
export class EngineStateNotFound extends Error {
  override name = 'EngineStateNotFound';
}
