// The closed set of expected-failure codes. Each code has one sentence a user understands,
// saying what happened and, where there is something to do, what to do. A failure's own
// `message` adds the specifics (which file, which export); `explain(code)` is the general form,
// served by `sandbox-packs explain CODE` and the UI's tooltip on a failure's code. Adding a code
// is a deliberate act: the union below is what every face (CLI, IPC, HTTP) and every worker
// protocol may carry, and ErrorCodeSchema is the one schema that checks it.

import { z } from 'zod';

export const ERROR_CODES = {
  // --- data crossing a boundary -------------------------------------------------------------
  'invalid-data': 'Some data did not have the expected shape; the message lists each problem by its key path.',
  usage: 'The command was called the wrong way; run it with --help to see how.',

  // --- pack-level discovery (the whole pack is rejected) --------------------------------------
  'package-json-invalid': 'The package.json could not be read as JSON; the pack author must fix it.',
  'manifest-invalid': 'The pack\'s "nodetool" manifest does not follow the format; the pack author must fix it.',
  'api-version-unsupported': 'The pack targets a manifest apiVersion this app does not know; update the app or use an older pack version.',
  'pack-too-large': 'The pack ships more than the 8 MB a pack may use.',
  'duplicate-module-name': 'Two modules of the pack resolve to the same import specifier.',
  'internal-invalid': 'An entry of the pack\'s "internal" list is not a .js file inside the pack.',
  'internal-duplicate': 'The pack\'s "internal" list names the same file twice.',
  'internal-cycle': "The pack's internal helper files import each other in a cycle.",

  // --- module-level discovery (the module is skipped, the pack stays usable) ------------------
  'module-name-invalid': 'A module name must be "." or one path segment of letters, digits, "-", "_" or ".".',
  'file-missing': 'The file the manifest names does not exist in the pack.',
  'file-outside-pack': "The file the manifest names resolves outside the pack's directory.",
  'file-symlink-escape': "The file is a symbolic link that points outside the pack's directory.",
  'file-too-large': 'The file is larger than the limit for its kind.',
  'js-syntax-error': 'The module is not valid JavaScript module syntax.',
  'js-dynamic-import': 'The module uses import(); dynamic import is not allowed in sandbox code.',
  'js-require': 'The module uses require(); sandbox modules use static ES imports only.',
  'js-node-import': 'The module imports a Node builtin; sandbox code has no Node APIs.',
  'js-import-outside-pack': 'The module imports something outside its own pack; a pack may import only its own files.',
  'js-import-unresolved': 'The module imports a file of its pack that is neither a public entry nor listed as internal.',
  'js-bridge-import': "The module imports the private WASM bridge directly; use the WASM entry's specifier instead.",
  'wasm-invalid': 'The file is not a valid WebAssembly binary.',
  'wasm-imports': 'The WASM module imports something from the host; v1 WASM modules may import nothing.',
  'wasm-memory-unbounded': 'A WASM memory declares no maximum; every memory must declare one.',
  'wasm-memory-too-large': "The WASM memory maximum is above what the manifest's memoryPagesMax or the 4096-page host ceiling allows.",
  'wasm-memory-shared': 'The WASM module declares a shared memory, which v1 does not allow.',
  'wasm-export-missing': 'An export the manifest declares is not in the WASM binary.',
  'wasm-export-not-function': 'An export the manifest declares is not a function.',
  'wasm-export-signature':
    'An export the manifest declares uses types outside the contract (i32, f32, f64, and bytes or string through the canonical ABI; at most 8 parameter words and 1 result), or types its function in the binary does not have.',
  'wasm-export-name-invalid': 'A WASM export name is not a valid JavaScript identifier; map it with { "wasm": "...", "as": "..." }.',
  'wasm-unsupported': 'The WASM module uses a WebAssembly feature v1 does not allow (for example 64-bit memory or garbage-collected types).',
  'npm-bundle-failed': 'The npm package could not be bundled for the sandbox.',
  'npm-node-builtin': 'The npm package imports a Node builtin, which the sandbox does not have.',
  'npm-forbidden-global': 'The npm package refers to a global the sandbox does not provide.',
  'npm-probe-failed': 'The npm package failed to initialize inside the sandbox.',
  'npm-too-large': 'The bundled npm module is larger than the 1 MB limit.',
  'module-over-limit':
    'The module goes past a limit the catalog holds every module to (at most 256 exported names, each at most 128 characters long); the pack author must fix it.',

  // --- SKILL.md (warnings only) ---------------------------------------------------------------
  'skill-missing': 'The pack has no SKILL.md; it works, but agents get no documentation for it.',
  'skill-too-large': 'SKILL.md is larger than 16 KB and is ignored; the modules still work.',
  'skill-invalid': 'SKILL.md has invalid frontmatter and is ignored; the modules still work.',

  // --- sandbox-packs check (pack authors) -----------------------------------------------------
  'example-mismatch': 'A SKILL.md example produced a different value from the one its "// →" comment states.',
  'example-invalid': 'A SKILL.md example\'s "// →" assertion cannot be checked: the value is not JSON, or the line does not end an expression.',
  'install-script-ignored': 'The pack declares an install script, but a sandbox-only pack is installed with scripts off and its scripts never run.',

  // --- resolving a node's declarations ----------------------------------------------------------
  'unknown-specifier': 'No installed pack provides this module; install the pack that provides it.',
  'internal-specifier': "This names a pack's internal helper file, which a node cannot import directly.",
  'module-skipped': 'The pack is installed but this module was skipped at discovery; see the reason.',
  'declaration-invalid': "The node's packages declaration is not valid.",
  'import-undeclared': "The code imports a module that is not in the node's packages declaration; add it to the declaration.",
  'declared-unused': 'The node declares a package its code never imports; remove it from the declaration.',
  'import-unknown-export': "The code imports a name the module does not export; see the module's docs for its exports.",
  'version-mismatch': 'The installed pack has a different version from the one the workflow was saved with; the installed version is used.',
  'digest-mismatch':
    "The installed module's content differs from what the workflow was saved with (same or different version); review the pack before running.",
  'session-not-allowed': "The code imports a package that is not on this session's package allowlist.",

  // --- running guest code -------------------------------------------------------------------------
  'syntax-error': 'The code is not valid JavaScript.',
  'import-denied': "The import is not allowed: only the modules in this node's packages declaration can be imported.",
  'dynamic-import': 'import() is not allowed in sandbox code; use a static import of a declared package.',
  'runtime-error':
    'The code threw an error while it ran, or a promise it awaited was rejected. The message gives the error and where it happened: "(line L, column C)" in the node\'s code, which the editor marks, or "in MODULE, line L" inside a pack\'s module with the node\'s line that called it. Common causes: reading a property of null or undefined, calling something that is not a function, a name that is not defined (the sandbox has no setTimeout, require, process, Buffer or Intl), or a pack function given input it rejects.',
  timeout: 'The code ran longer than its time limit and was stopped.',
  'memory-limit': 'The code used more than the 64 MB sandbox memory limit and was stopped.',
  'stack-overflow': 'The code recursed too deeply and was stopped.',
  'capability-denied': 'The code used a capability this node was not granted.',
  'sandbox-crashed': 'The sandbox worker failed; the run was stopped and a fresh worker took its place.',
  cancelled: 'The run was stopped at your request; a fresh sandbox worker took its place.',
  'result-invalid': 'The code returned a value that cannot be passed out of the sandbox as JSON.',
  'fetch-failed': 'The request made with fetch failed (the host could not be reached, or it timed out).',
  'response-too-large': 'The response to fetch was larger than the sandbox accepts.',
  'fetch-budget-concurrency': 'The run had more fetch requests in flight than its budget allows; wait for one to finish before starting another.',
  'workspace-failed': 'The workspace file operation failed (for example, the file does not exist).',
  'secret-not-set': 'The secret was granted to the node but has no value on this machine; save one under that name on the Secrets screen.',

  // --- WASM bridge ----------------------------------------------------------------------------
  'wasm-argument': 'A WASM function was called with the wrong number or kind of arguments.',
  'wasm-not-declared': "That WASM module or export is not part of this run's declared packages.",
  'wasm-budget-calls': 'The run made more WASM calls than its budget allows.',
  'wasm-budget-concurrency': 'The run had more WASM calls in flight than its budget allows.',
  'wasm-budget-time': 'The run used more WASM time than its budget allows.',
  'wasm-budget-bytes': 'A WASM call passed in or returned more bytes than its budget allows.',
  'wasm-timeout': 'A WASM call ran longer than its time limit and was stopped.',
  'wasm-trap': 'The WASM function trapped (for example: unreachable, division by zero, out-of-bounds memory).',

  // --- installer ------------------------------------------------------------------------------
  'install-failed': 'npm could not install the package; the message says why.',
  'spec-unsupported': 'This kind of package spec cannot be installed.',
  'not-a-pack': 'The package is not a Sandbox Pack (its package.json has no "nodetool" field), so it was removed again.',
  'not-installed': 'No pack of that name is installed.',
  'already-installed': 'A pack of that name is installed already; update it to change its version, or uninstall it first to install another.',
  conflict: 'The package holds a pack that is installed already under the same name, so nothing was changed; uninstall that pack first to replace it.',
  'not-updatable': 'The pack was installed from a tarball, which has no newer versions to update to; uninstall it, then install the new tarball.',
  busy: 'Another install, update or uninstall is running on this install root; wait for it to finish.',
  'integrity-mismatch': 'The registry served a different artifact for the same version; nothing was run.',
  'trust-required': 'This pack needs your trust before it can run scripts or host code.',
  'rebuild-failed': "Running the trusted pack's install scripts failed.",
  'pack-changed': 'The pack changed since you reviewed it (another version or artifact is installed now); nothing was run. Review it again.',
  'registry-unreachable': 'The package registry could not be reached.',
  'npm-unavailable': 'The npm that ships with the app could not be started; reinstall the app.',
  'root-unreadable': 'The install root could not be read.',
  'disk-full': 'The disk holding the data directory is full, so nothing was changed; free some space and try again.',
  'install-cancelled': 'The install or update was stopped at your request; what it had changed was undone, so the packs are as they were.',

  // --- service contract -------------------------------------------------------------------------
  'invalid-request': 'The request did not match the service contract.',
  unauthorized: "The request lacks this session's access token.",
  forbidden: 'This client is not allowed to do that.',
  'not-found': 'Nothing exists under that name.',
  'name-taken': 'Something is saved under that name already; choose another name.',
  internal: 'Something went wrong inside the app; the details are in its log.',
  'request-too-large': 'The request is larger than the app accepts.',
  'stale-digest': 'The module changed since that digest was recorded; fetch it again without the digest.',
  'service-unreachable': "The app's background service could not be reached; check that it is still running.",
  'too-many-connections': 'The app already has as many connections or event streams open as it accepts; close a tab or window that shows it, then try again.',
} as const satisfies Record<string, string>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

/** The closed code set as a schema: an unknown code in a message is a parse failure. */
export const ErrorCodeSchema = z.enum(ERROR_CODE_LIST as [ErrorCode, ...ErrorCode[]]);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The general sentence for a code. */
export function explain(code: ErrorCode): string {
  return ERROR_CODES[code];
}
