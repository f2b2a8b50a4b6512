// `check` imports each ready JS module on its own in the sandbox, as a node that declares it
// would: discovery reads a module's text but never runs it, so a module that throws while it is
// imported is still listed as ready there — yet every node that imports it fails. Such a module is
// not ready in the check report: its failure is a problem at the module file's line the error names.

import type { ErrorCode } from '../../shared/protocol/codes.ts';
import type { CodeRunner } from '../services/code-runner.ts';

export interface ImportFailure {
  readonly specifier: string;
  readonly code: ErrorCode;
  /** The sandbox's message for the failed import. */
  readonly message: string;
  /** The line in the module's own file the error names, when it names one. */
  readonly line?: number;
}

/** Per-import deadline: importing a module is its top-level code, not a workload. */
const IMPORT_TIMEOUT_MS = 10_000;

export async function importFailures(runner: CodeRunner, specifiers: readonly string[]): Promise<ImportFailure[]> {
  const failures: ImportFailure[] = [];
  for (const specifier of specifiers) {
    const ran = await runner.run({
      code: `import * as module from ${JSON.stringify(specifier)};\nreturn Object.keys(module).length;`,
      packages: [{ specifier }],
      timeoutMs: IMPORT_TIMEOUT_MS,
    });
    const failed = !ran.ok ? ran : !ran.value.result.ok ? ran.value.result : undefined;
    if (!failed) continue;
    const named = new RegExp(`\\bin ${specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, line (\\d+), column \\d+`).exec(failed.message);
    failures.push({ specifier, code: failed.code as ErrorCode, message: failed.message, ...(named ? { line: Number(named[1]) } : {}) });
  }
  return failures;
}
