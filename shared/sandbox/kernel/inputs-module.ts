// A run's inputs are globals the node's code reads, bound by the entry itself after every import
// has evaluated, so no module's initialisation ever sees them — neither one evaluated in the run
// nor one evaluated into the sandbox's image before any run (module-image.ts). The host defines a
// one-shot binding before the prelude; the kernel's inputs module, evaluated when the sandbox is
// made and before any pack, takes and deletes it; the entry imports `bind` from it and calls it
// first thing in its own body (entry-transform.ts). Only the entry may import this module.

/** The global the host defines for the inputs module to take (deleted before any pack evaluates). */
export const HOST_INPUTS_GLOBAL = '__sandboxHostInputs';
/** The kernel's inputs module; reserved ("sandbox:"), importable by the entry only. */
export const INPUTS_MODULE_ID = 'sandbox:inputs';
/** The entry's local name for the module's `bind`. */
export const BIND_INPUTS_NAME = '__sandboxBindInputs';
